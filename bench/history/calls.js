// The history bench's HTTP client side: one timed GET, a route timed over a fixed number of calls, and
// a route sampled for as long as something else runs (the "1 ms route under load" figures).
import { performance } from 'node:perf_hooks';
import { ADMIN_TOKEN, percentiles } from './setup.js';

export const CALLS = 50;
export const WARMUP = 3;

/** One GET with the token; resolves with its duration and body, throws on anything but 200. */
export async function call(url, path, token = ADMIN_TOKEN) {
  const started = performance.now();
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return { ms, text };
}

/** Calls `paths(i)` WARMUP + CALLS times; resolves with median, p99 and how many items the first answer listed. */
export async function timeRoute(url, paths, token = ADMIN_TOKEN) {
  const samples = [];
  let items = '';
  for (let i = 0; i < WARMUP + CALLS; i++) {
    const { ms, text } = await call(url, paths(i), token);
    if (i === 0 && text.startsWith('{"items"')) items = JSON.parse(text).items.length;
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
