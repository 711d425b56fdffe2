import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
const secret = process.env.EXPERTQ_WEBHOOK_SECRET; // the whsec_… that POST /consumers answered
if (!secret) { console.error('Set EXPERTQ_WEBHOOK_SECRET to the whsec_… secret that POST /consumers answered.'); process.exit(1); }
const wh = new Webhook(secret), seen = new Set(); // webhook-id is stable across retries: dedupe on it (use your database in production)
const host = process.env.HOST ?? '127.0.0.1', port = Number(process.env.PORT ?? 3000); // this machine only; HOST=0.0.0.0 to accept others
createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk)).on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8'); // decode once: a chunk can end inside a character
    let event;
    try { event = wh.verify(body, req.headers); } catch { return res.writeHead(401).end(); } // forged or stale
    if (!seen.has(req.headers['webhook-id']) && event.event === 'proposal_accepted') console.log('write back:', event.proposal.answer);
    seen.add(req.headers['webhook-id']);
    res.writeHead(204).end(); // any 2xx = delivered; anything else is retried
  });
}).listen(port, host, () => console.log(`receiving webhooks on http://${host.includes(':') ? `[${host}]` : host}:${port}`));
