import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AskRecord, MessageRecord, RequestRecord } from '../../src/domain/records.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { createRepositories } from '../../src/store/sqlite/repositories.js';
import type { Tx } from '../../src/store/store.js';

// A smoke test of the SQLite repositories over a real database file: what goes in comes back out.
let dir: string;

/**
 * The schema as `openDatabase` (src/store/sqlite-store.ts) makes it. That module cannot be loaded
 * while the store is reworked (it imports the moved `prune.ts`): switch to `openDatabase` once it lives
 * beside the repositories.
 */
function openDatabase(path: string): Database.Database {
  const opened = new Database(path);
  opened.pragma('journal_mode = WAL');
  opened.pragma('foreign_keys = ON');
  MIGRATIONS.forEach((sql, v) => {
    opened.exec(sql);
    opened.pragma(`user_version = ${v + 1}`);
  });
  return opened;
}

let db: Database.Database;
let repos: Tx;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'expertq-repos-'));
  db = openDatabase(join(dir, 'db.sqlite'));
  repos = createRepositories(db);
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const request: RequestRecord = {
  id: 'req_1',
  consumer_id: 'billing-bot',
  kind: 'answer',
  topic: 'billing',
  question: 'May we refund an annual plan after 40 days?',
  context: { plan: 'annual' },
  target_experts: ['alice'],
  routing_policy: { escalation_after: 7_200_000, give_up_after: 86_400_000, quiet_hours: null, max_open_asks_per_expert: 3, max_asks_per_expert_per_day: 5 },
  own_policy: null,
  dedup_key: 'refund-40d',
  status: 'queued',
  reason: null,
  proposal_id: null,
  held: false,
  drafting: false,
  asked_question: null,
  give_up_at: 90_000_000,
  created_at: 1_000,
  updated_at: 1_000,
};

const ask: AskRecord = {
  id: 'ask_1',
  request_id: 'req_1',
  expert_id: 'alice',
  state: 'queued',
  via: 'target',
  created_at: 1_000,
  sent_at: null,
  escalate_at: null,
  closed_at: null,
  send_after: null,
  instructions: null,
};

const message: MessageRecord = {
  id: 'msg_1',
  expert_id: 'alice',
  request_id: 'req_1',
  ask_id: 'ask_1',
  proposal_id: null,
  purpose: 'ask',
  text: 'May we refund an annual plan after 40 days?',
  elements: ['a', 'b', 'c', 'd', 'e', 'f'],
  state: 'pending',
  attempts: 0,
  next_attempt_at: 2_000,
  created_at: 1_500,
  sent_at: null,
  last_error: null,
};

describe('the SQLite repositories', () => {
  it('a request reads back as written, and an update changes only what it names', async () => {
    await repos.requests.insert(request);
    expect(await repos.requests.get('req_1')).toEqual(request);
    expect(await repos.requests.findByDedupKey('refund-40d', 0)).toEqual(request);

    await repos.requests.update('req_1', { status: 'failed', reason: { code: 'timeout', message: 'nobody answered' }, held: true, updated_at: 5_000 });
    expect(await repos.requests.get('req_1')).toEqual({ ...request, status: 'failed', reason: { code: 'timeout', message: 'nobody answered' }, held: true, updated_at: 5_000 });
    expect((await repos.requests.list({ status: 'failed', limit: 10 })).map((r) => r.id)).toEqual(['req_1']);
    expect(await repos.requests.get('req_missing')).toBeUndefined();
  });

  it('an ask reads back as written, and once opened counts as the expert\'s open ask', async () => {
    await repos.requests.insert(request);
    await repos.asks.insert(ask);
    expect(await repos.asks.get('ask_1')).toEqual(ask);

    await repos.asks.update('ask_1', { state: 'open', sent_at: 3_000, escalate_at: 10_000 });
    const opened = { ...ask, state: 'open', sent_at: 3_000, escalate_at: 10_000 };
    expect(await repos.asks.listFor('req_1')).toEqual([opened]);
    expect(await repos.asks.findForReply('alice', null)).toEqual(opened);
    expect(await repos.asks.expertStates(['alice'], 0)).toEqual(new Map([['alice', { muted: false, openAsks: 1, queuedAsks: 0, asksToday: 1 }]]));
  });

  it('a message is claimed once it is due, leased to one owner, and sent', async () => {
    await repos.requests.insert(request);
    await repos.asks.insert(ask);
    await repos.outbox.enqueueMessage(message);
    expect(await repos.outbox.messages('req_1')).toEqual([message]);
    expect(await repos.outbox.askElements('ask_1')).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);

    expect(await repos.outbox.claimMessages({ now: 1_999, owner: 'p1', leaseUntil: 60_000, limit: 10 })).toEqual([]);
    expect(await repos.outbox.claimMessages({ now: 2_000, owner: 'p1', leaseUntil: 60_000, limit: 10 })).toEqual([message]);
    // Leased to p1: nobody else gets it until the lease runs out.
    expect(await repos.outbox.claimMessages({ now: 3_000, owner: 'p2', leaseUntil: 60_000, limit: 10 })).toEqual([]);

    await repos.outbox.markMessagesSent(['msg_1'], 4_000);
    expect(await repos.outbox.messages('req_1')).toEqual([{ ...message, state: 'sent', attempts: 1, sent_at: 4_000 }]);
    expect(await repos.outbox.claimMessages({ now: 100_000, owner: 'p2', leaseUntil: 160_000, limit: 10 })).toEqual([]);
  });
});
