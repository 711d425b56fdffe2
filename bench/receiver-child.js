// A local webhook receiver in its own process, so it does not share the event loop of the service
// under test. Answers every POST 200 at once (keep-alive) and counts requests per first path segment
// ("/fanout/hook-3" counts under "fanout"), with the wall-clock time of the first and last one.
// IPC: sends { type: 'listening', port }; answers { type: 'wait', key, count } with
// { type: 'reached', key, ...counter } once `count` requests arrived under `key`, and
// { type: 'stats' } with { type: 'stats', counters }; { type: 'stop' } closes and exits.
import { createServer } from 'node:http';

const counters = {};
let waits = [];

function counter(key, now) {
  counters[key] ??= { count: 0, firstAt: now, lastAt: now, bytes: 0, signed: 0, byPath: {} };
  return counters[key];
}

function settleWaits() {
  waits = waits.filter((w) => {
    const c = counters[w.key];
    if (!c || c.count < w.count) return true;
    process.send({ type: 'reached', key: w.key, ...c });
    return false;
  });
}

const server = createServer((req, res) => {
  let bytes = 0;
  req.on('data', (chunk) => {
    bytes += chunk.length;
  });
  req.on('end', () => {
    res.writeHead(200, { 'content-length': '0' });
    res.end();
    const now = Date.now();
    const c = counter(req.url.split('/')[1] || '-', now);
    c.count++;
    c.lastAt = now;
    c.bytes += bytes;
    if (req.headers['webhook-signature']) c.signed++;
    c.byPath[req.url] = (c.byPath[req.url] ?? 0) + 1;
    if (waits.length > 0) settleWaits();
  });
});
server.keepAliveTimeout = 30_000;

process.on('message', (message) => {
  if (message.type === 'wait') {
    waits.push(message);
    settleWaits();
  } else if (message.type === 'stats') {
    process.send({ type: 'stats', counters });
  } else if (message.type === 'stop') {
    server.closeAllConnections();
    server.close(() => process.disconnect());
  }
});

server.listen(0, '127.0.0.1', () => process.send({ type: 'listening', port: server.address().port }));
