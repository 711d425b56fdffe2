import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
const wh = new Webhook(process.env.EXPERTQ_WEBHOOK_SECRET); // the whsec_… that POST /consumers answered
const seen = new Set(); // webhook-id is stable across retries: dedupe on it (use your database in production)
createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk)).on('end', () => {
    let event;
    try { event = wh.verify(body, req.headers); } catch { return res.writeHead(401).end(); } // forged or stale
    if (!seen.has(req.headers['webhook-id']) && event.event === 'proposal_accepted') console.log('write back:', event.proposal.answer);
    seen.add(req.headers['webhook-id']);
    res.writeHead(204).end(); // any 2xx = delivered; anything else is retried
  });
}).listen(3000);
