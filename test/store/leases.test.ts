import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessageRecord } from '../../src/domain/records.js';
import { openDatabase, SqliteStore } from '../../src/store/sqlite-store.js';

/** Claims on the message outbox through two connections to one database file, as two processes hold them. */

const T0 = Date.parse('2026-11-23T10:00:00.000Z');
const LEASE = 15_000;

let dir: string;
let a: SqliteStore;
let b: SqliteStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'expertq-leases-'));
  a = new SqliteStore(openDatabase(join(dir, 'db.sqlite')));
  b = new SqliteStore(openDatabase(join(dir, 'db.sqlite')));
});
afterEach(() => {
  a.close();
  b.close();
  rmSync(dir, { recursive: true, force: true });
});

function message(id: string): MessageRecord {
  return { id, expert_id: 'dana', request_id: null, ask_id: null, purpose: 'notice', text: 'hello', elements: null, state: 'pending', attempts: 0, next_attempt_at: T0, created_at: T0, sent_at: null, last_error: null };
}

const claim = (store: SqliteStore, owner: string, now: number) => store.claimMessages({ now, owner, leaseUntil: now + LEASE, limit: 10 }).map((m) => m.id);

describe('message leases', () => {
  it('a live lease is nobody else’s; a lapsed one is anyone’s, and only its holder renews or reschedules it', () => {
    a.enqueueMessage(message('msg_1'));
    a.enqueueMessage(message('msg_2'));
    expect(claim(a, 'inst_a', T0)).toEqual(['msg_1', 'msg_2']);
    expect(claim(b, 'inst_b', T0 + LEASE - 1)).toEqual([]);

    // a renews one of them; the other lapses and b takes it.
    expect(a.renewLeases('message', ['msg_1'], 'inst_a', T0 + 2 * LEASE)).toBe(1);
    expect(claim(b, 'inst_b', T0 + LEASE)).toEqual(['msg_2']);
    expect(a.renewLeases('message', ['msg_2'], 'inst_a', T0 + 3 * LEASE)).toBe(0);

    // a's late failure does not reopen what b now holds; b's outcome counts.
    expect(a.rescheduleMessage('msg_2', 'inst_a', 'timed out', T0 + 60_000)).toBe(false);
    b.markMessagesSent(['msg_2'], T0 + LEASE);
    expect(claim(b, 'inst_b', T0 + 2 * LEASE - 1)).toEqual([]);
    expect(claim(b, 'inst_b', T0 + 2 * LEASE)).toEqual(['msg_1']);
    expect(b.metricCounts().pendingMessages).toBe(1);
  });
});
