import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { expect } from 'vitest';
import { PG_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { databaseOf, postgresUrl } from './engines.js';
import type { SchedulerKit } from '../support/scheduler-kit.js';

/** Monday 23 November 2026, 10:00 UTC: the scripted history's first submit. */
export const MONDAY_10 = Date.parse('2026-11-23T10:00:00.000Z');
const MIN = 60_000;
const at = (minutes: number) => MONDAY_10 + minutes * MIN;

/** The ids the history made. */
export interface History {
  requests: Record<'answered' | 'sentBack' | 'cancelled' | 'muted' | 'reused' | 'unroutable', string>;
}

/**
 * A morning of work, every event at a known minute: two answered requests (one accepted, one sent back
 * then rejected, after a skip escalated it), a cancelled one, one with no expert for its topic, one whose
 * expert muted (still open), and one answered from the library and accepted.
 */
export async function scriptHistory(kit: SchedulerKit): Promise<History> {
  const t = kit.t;
  const ok = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const res = await t.call(method, url, body);
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const submitAt = async (minutes: number, overrides: Record<string, unknown>) => {
    t.clock.set(at(minutes));
    return kit.submit(overrides);
  };
  const replyAt = async (minutes: number, expert: string, text: string, requestId: string) => {
    t.clock.set(at(minutes));
    return ok('POST', '/api/v1/replies', { expert_id: expert, request_id: requestId, text });
  };

  const answered = await submitAt(0, { target_experts: ['dana'] });
  const sentBack = await submitAt(0, { target_experts: ['dana'], consumer_id: 'ops-bot', question: 'How are refunds for duplicate card charges booked?' });
  const cancelled = await submitAt(1, { target_experts: ['dana'], question: 'Which ledger takes the chargeback fees?' });
  const unroutable = await submitAt(2, { topic: 'gardening', question: 'When should the office plants be watered?' });

  t.clock.set(at(5));
  await ok('POST', `/api/v1/requests/${cancelled}/cancel`, { cancelled_by: 'billing-bot' });
  await replyAt(10, 'dana', 'skip', sentBack); // escalates to Lee
  const p1 = (await replyAt(30, 'dana', 'Thirty days from the invoice date.', answered)).proposal_id;
  const p2 = (await replyAt(40, 'lee', 'As a refund on the original card.', sentBack)).proposal_id;
  t.clock.set(at(50));
  await ok('POST', `/api/v1/proposals/${p2}/return`, { decided_by: 'rita', instructions: 'Say which account.' });
  t.clock.set(at(60));
  await ok('POST', `/api/v1/proposals/${p1}/accept`, { decided_by: 'rita' });
  const p3 = (await replyAt(80, 'lee', 'As a refund on the original card, account 4100.', sentBack)).proposal_id;
  t.clock.set(at(90));
  await ok('POST', `/api/v1/proposals/${p3}/reject`, { decided_by: 'rita', reason: 'Wrong account.' });

  // The same question again, from another consumer: answered from the library, accepted.
  t.clock.set(at(100));
  const reused = await kit.submit({ consumer_id: 'ops-bot' });
  const p5 = (await ok('GET', `/api/v1/requests/${reused}`)).proposal_id as string;
  t.clock.set(at(120));
  await ok('POST', `/api/v1/proposals/${p5}/accept`, { decided_by: 'rita' });

  // Dana mutes on a new request: it passes on to Lee, and stays open.
  const muted = await submitAt(130, { target_experts: ['dana'], question: 'Do credit notes need a second approval?' });
  await replyAt(135, 'dana', 'mute', muted);
  return { requests: { answered, sentBack, cancelled, muted, reused, unroutable } };
}

/** Every rollup row of the database kept in `dir`, numbers as numbers, in key order. */
export async function rollupRows(engine: string, dir: string): Promise<unknown[]> {
  const order = {
    insight_hours: 'SELECT * FROM insight_hours ORDER BY expert, hour, topic, consumer',
    insight_times: 'SELECT * FROM insight_times ORDER BY expert, hour, topic, consumer, metric, bucket',
    insight_periods: 'SELECT * FROM insight_periods ORDER BY unit, dim, value, start',
    insight_period_times: 'SELECT * FROM insight_period_times ORDER BY unit, dim, value, start, metric, bucket',
  };
  const rows = await onDatabase(engine, dir, async (query) => {
    const all: Array<Record<string, unknown>> = [];
    for (const sql of Object.values(order)) all.push(...(await query(sql)));
    return all;
  });
  const texts = ['topic', 'expert', 'consumer', 'metric', 'unit', 'dim', 'value'];
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && !texts.includes(k) ? Number(v) : v])));
}

/** Takes the database in `dir` back to the schema before the rollups (the store closed): as an older version left it. */
export async function rewindBeforeInsights(engine: string, dir: string): Promise<void> {
  await onDatabase(engine, dir, async (query) => {
    await query('DROP TABLE insight_hours');
    await query('DROP TABLE insight_times');
    await query('DROP TABLE insight_periods');
    await query('DROP TABLE insight_period_times');
    await query('DROP TABLE insight_journal');
    await query("DELETE FROM service_state WHERE key = 'insights.period_zone'");
    if (engine === 'sqlite') await query(`PRAGMA user_version = ${MIGRATIONS.length - 1}`);
    else await query(`UPDATE expertq_schema SET version = ${PG_MIGRATIONS.findIndex((m) => typeof m === 'string' && m.includes('CREATE TABLE insight_hours'))}`);
  });
}

/** Appends a journal row to the database in `dir` (the store closed), as a transaction that committed just before a crash leaves it. */
export async function appendJournal(engine: string, dir: string, counts: unknown): Promise<void> {
  const text = JSON.stringify(counts).replaceAll("'", "''");
  await onDatabase(engine, dir, (query) => query(`INSERT INTO insight_journal (counts) VALUES ('${text}')`));
}

type Query = (sql: string) => Promise<Array<Record<string, unknown>>>;

async function onDatabase<T>(engine: string, dir: string, work: (query: Query) => Promise<T>): Promise<T> {
  if (engine === 'sqlite') {
    const db = new Database(join(dir, 'db.sqlite'));
    try {
      return await work(async (sql) => (/^\s*SELECT/i.test(sql) ? (db.prepare(sql).all() as Array<Record<string, unknown>>) : (db.exec(sql), [])));
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: postgresUrl(databaseOf(dir)) });
  await client.connect();
  try {
    return await work(async (sql) => (await client.query(sql)).rows as Array<Record<string, unknown>>);
  } finally {
    await client.end();
  }
}
