// What the history bench's build and measure share: the organisation (600 experts, 7 consumers), its
// config file, the tokens the measuring client uses, and where a built SQLite history is cached.
import { closeSync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateExperts, topicPool } from '../fixtures.js';
import { writeConfig } from '../servers.js';

export const EXPERT_COUNT = 600;
export const CONSUMERS = Array.from({ length: 7 }, (_, i) => `bench-bot-${i}`);
/** The probe's traffic: 913 requests a day. */
export const PER_DAY = 913;

/** The admin token and one consumer token, in the variables the config names. */
export const ADMIN_TOKEN = 'history-bench-admin-token-0123456789abcdef';
export const CONSUMER_TOKEN = 'history-bench-consumer-token-0123456789abcdef';
export const TOKEN_ENV = { SERVICE_API_TOKEN: ADMIN_TOKEN, EXPERTQ_HISTORY_CONSUMER_TOKEN: CONSUMER_TOKEN };
/** The consumer the consumer token acts as. */
export const TOKEN_CONSUMER = CONSUMERS[0];

/** The variable the PostgreSQL config names in `storage.url_env`. */
export const URL_ENV = 'EXPERTQ_HISTORY_DATABASE_URL';

/**
 * The topic pool, split: the last topic is rare (a request picks it 1 in 5,000 times), so `?topic=`
 * with it has few matches in a large history.
 */
export function topics() {
  const pool = topicPool();
  return { common: pool.slice(0, -1), rare: pool[pool.length - 1] };
}

/** A word no generated question contains, except the 1 in 5,000 that carry it (`?q=` with a rare word). */
export const RARE_WORD = 'quokka';

/**
 * 600 experts with 2-3 topics each (bench/fixtures.js), in teams of three: the first two escalate to
 * the third, who escalates to nobody (no cycles), so escalations have somewhere to go.
 */
export function historyExperts() {
  const { common, rare } = topics();
  const experts = generateExperts(EXPERT_COUNT, [...common, rare], 21);
  return experts.map((e, i) => (i % 3 === 2 ? e : { ...e, escalation_to: experts[i - (i % 3) + 2].id }));
}

/**
 * Writes `dir/service.yaml` for the history org: the experts, the admin and consumer tokens, and the
 * storage (`{ path }` for SQLite, `{ url_env }` for PostgreSQL). Defaults are the product's own.
 */
export function writeHistoryConfig(dir, storage) {
  return writeConfig(dir, {
    experts: historyExperts(),
    server: { tokens: [{ name: TOKEN_CONSUMER, token_env: 'EXPERTQ_HISTORY_CONSUMER_TOKEN', role: 'consumer' }] },
    storage,
  });
}

/** bench/.cache/ (gitignored), created on first use. */
export function cacheDir() {
  const dir = fileURLToPath(new URL('../.cache/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Where a built SQLite history of `requests` submissions is kept, and the facts measure needs about it. */
export function cachedPaths(requests) {
  const dir = cacheDir();
  return { db: `${dir}history-${requests}.db`, facts: `${dir}history-${requests}.json` };
}

/** Median, p99 (nearest rank) and the slowest of a list of durations. */
export function percentiles(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] };
}

/**
 * Waits until what was written to the file at `path` is on disk, as a database at rest is. Otherwise
 * the kernel writes it back while the server starts, and the server's first fsync of anything on that
 * disk waits for gigabytes that are the bench's own doing.
 */
export function fsyncFile(path) {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
