// The history bench's HTTP client side: one timed GET, a route timed over a fixed number of calls, and
// a route sampled for as long as something else runs (the "1 ms route under load" figures).
import { Buffer } from 'node:buffer';
import { Agent, get } from 'node:http';
import { performance } from 'node:perf_hooks';
import { gunzipSync } from 'node:zlib';
import { ADMIN_TOKEN, percentiles } from './setup.js';

// 200, not 50: the p99 (nearest rank) of 50 calls is the slowest one, and on 2 cores shared with the
// client about one call in 200 waits a few ms for a core whatever the route; the slowest is printed too.
export const CALLS = 200;
export const WARMUP = 3;

// Connections kept open, as a load balancer keeps them. node:http rather than fetch: on 2 cores the
// client's own work is part of every figure, and fetch's added 0.5 ms a call and tails of its own.
const agent = new Agent({ keepAlive: true });

/**
 * One GET with the token; resolves with its duration and body (`text`, decoded when read), throws on
 * anything but 200. The body is decoded only when asked for: decoding every answer (GET /experts is
 * 300 KB of JSON at 600 experts) filled the client's heap, and its garbage collections landed in
 * later calls' times (3-6 ms pauses, a dozen in 400 calls, beside PostgreSQL on 2 cores).
 */
export function call(url, path, token = ADMIN_TOKEN) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    get(`${url}${path}`, { agent, headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' } }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const ms = performance.now() - started;
        const decode = () => {
          const raw = Buffer.concat(chunks);
          return (response.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
        };
        if (response.statusCode !== 200) reject(new Error(`GET ${path} answered ${response.statusCode}: ${decode().slice(0, 300)}`));
        else
          resolve({
            ms,
            get text() {
              return decode();
            },
          });
      });
    }).on('error', reject);
  });
}

/**
 * Calls every route of `paths` in turn for `ms`: a server measured right after it starts is still
 * compiling its hot code on the second core for its first seconds (calls of 0.3 ms took 5-20 ms then),
 * which no running server shows. Resolves with how many calls were made.
 */
export async function warmUp(url, paths, ms) {
  const until = performance.now() + ms;
  let calls = 0;
  while (performance.now() < until) for (const [path, token] of paths) await call(url, path(calls++), token);
  return calls;
}

/** Calls `paths(i)` WARMUP + CALLS times; resolves with median, p99 and how many items the first answer listed. */
export async function timeRoute(url, paths, token = ADMIN_TOKEN) {
  const samples = [];
  let items = '';
  for (let i = 0; i < WARMUP + CALLS; i++) {
    const answer = await call(url, paths(i), token);
    if (i === 0) {
      const text = answer.text;
      if (text.startsWith('{"items"')) items = JSON.parse(text).items.length;
    }
    const { ms } = answer;
    if (i >= WARMUP) samples.push(ms);
  }
  return { ...percentiles(samples), items };
}

/**
 * Calls `paths(i)` one after another until `done()` is true (checked before each call) or `max` calls
 * were made; resolves with p50, p99 and the number of calls (p50/p99 null when there was none).
 */
export async function sampleWhile(url, paths, done, max = Infinity) {
  const samples = [];
  while (!done() && samples.length < max) samples.push((await call(url, paths(samples.length))).ms);
  return samples.length === 0 ? { p50: null, p99: null, n: 0 } : { ...percentiles(samples), n: samples.length };
}

/**
 * Runs `once()` back to back until `stop()` is true; resolves with how many ran and their median time.
 * The loop a slow-call class runs while a 1 ms route is sampled.
 */
export async function backToBack(once, stop) {
  const times = [];
  while (!stop()) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  return { n: times.length, p50: times.length ? percentiles(times).p50 : null };
}
