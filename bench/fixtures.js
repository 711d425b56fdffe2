// Deterministic test data for the benchmarks: a topic pool, an expert registry drawn from it, and
// valid `POST /api/v1/requests` bodies. Plain data only, so a worker thread can rebuild it.

import { seededRandom } from '../dist/core/seeded-random.js';

/** The seeded generator the tests use too, so every run generates the same registry and traffic. */
export const prng = seededRandom;

const AREAS = [
  'billing', 'invoices', 'payments', 'refunds', 'payroll', 'tax', 'pricing', 'contracts', 'procurement', 'expenses',
  'kubernetes', 'deployments', 'networking', 'dns', 'databases', 'postgres', 'backups', 'monitoring', 'alerting', 'logging',
  'security', 'compliance', 'privacy', 'identity', 'onboarding', 'hiring', 'benefits', 'travel', 'facilities', 'legal',
];
const ASPECTS = ['policy', 'limits', 'migration', 'outages', 'reporting', 'audits', 'tooling', 'escalations', 'costs', 'api'];

/** ~300 distinct two-word topics ("billing policy", …). Two-word topics never fuzzy-match each other. */
export function topicPool() {
  const pool = [];
  for (const area of AREAS) for (const aspect of ASPECTS) pool.push(`${area} ${aspect}`);
  return pool;
}

const FIRST = ['Dana', 'Lee', 'Sam', 'Ana', 'Kofi', 'Mia', 'Raj', 'Ines', 'Tom', 'Yuki', 'Omar', 'Lena', 'Ivan', 'Zoe', 'Noah'];
const LAST = ['Smith', 'Chen', 'Okafor', 'Garcia', 'Mensah', 'Berg', 'Patel', 'Silva', 'Novak', 'Sato', 'Haddad', 'Keller'];

/**
 * `count` experts with 2-3 topics each from the pool. Every pool topic is given to at least one
 * expert (round-robin first), so an exact match always exists and hits a handful of experts.
 */
export function generateExperts(count, pool, seed = 1) {
  const rand = prng(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const experts = [];
  for (let i = 0; i < count; i++) {
    const topics = new Set([pool[i % pool.length]]);
    const wanted = 2 + (rand() < 0.5 ? 1 : 0);
    while (topics.size < wanted) topics.add(pick(pool));
    experts.push({
      id: `exp${String(i).padStart(4, '0')}`,
      name: `${pick(FIRST)} ${pick(LAST)}`,
      topics: [...topics],
    });
  }
  return experts;
}

/** A valid submit body; `n` makes the question unique. */
export function submitBody(topic, n) {
  return {
    consumer_id: `bench-bot-${n % 7}`,
    topic,
    question: `What is the current ${topic} for case ${n}?`,
    context: { asked_because: `benchmark request ${n} needs to know about ${topic}`, ticket: `T-${n}` },
  };
}
