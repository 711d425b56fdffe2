import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ask, DAY, HOUR, request, T0 } from '../records.js';
import { NEWEST_FIRST } from '../../../src/store/sqlite/request-search.js';
import { planRecordingStore } from './plan-recorder.js';
import { pruneOnce } from '../../../src/store/retention.js';

// Reads whose cost must not grow with history (three years: a million requests, a million asks): each
// is a range on an index that holds only what it returns, never a scan of everything kept. SQLite's own
// plan, for the statements the store runs.
let dir = '';
let db: ReturnType<typeof planRecordingStore>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'expertq-plans-'));
  db = planRecordingStore(join(dir, 'db.sqlite'));
});
afterEach(async () => {
  await db.store.close();
  rmSync(dir, { recursive: true, force: true });
});

const dayStart = T0 - 10 * HOUR;

describe('SQLite plans of reads over a long history', () => {
  it("every expert's asks today (GET /experts) is one range of the asks sent since the day's start, read from the index alone", async () => {
    await db.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1'));
      await tx.asks.insert(ask('ask_1', 'req_1', 'dana', { state: 'answered', sent_at: dayStart - 30 * DAY }));
      await tx.asks.insert(ask('ask_2', 'req_1', 'dana', { sent_at: dayStart + HOUR }));
      await tx.asks.insert(ask('ask_3', 'req_1', 'lee', { state: 'answered', sent_at: dayStart - 1 }));
      await tx.asks.insert(ask('ask_4', 'req_1', 'sam', { sent_at: dayStart }));
    });
    db.forget();
    const states = await db.store.asks.expertStates(null, dayStart);
    expect([...states].map(([id, s]) => [id, s.asksToday])).toEqual(expect.arrayContaining([['dana', 1], ['sam', 1]]));
    expect(states.get('lee')?.asksToday ?? 0).toBe(0);

    const [plan, ...more] = db.plansOf(/sent_at >=/);
    expect(more).toEqual([]);
    expect(plan).toBe('SEARCH asks USING COVERING INDEX asks_sent_expert (sent_at>?)');
    expect(plan).not.toMatch(/SCAN asks/);
  });

  it('requests of one topic, first page and next, are a range on the topic index', async () => {
    await db.store.requests.list({ topic: 'billing', limit: 20 });
    await db.store.requests.list({ topic: 'billing', limit: 20, before: 'req_5' });
    expect(db.plansOf(/FROM requests/)).toEqual([
      'SEARCH requests USING INDEX requests_topic (topic=?)',
      'SEARCH requests USING INDEX requests_topic (topic=? AND id<?)',
    ]);
  });

  it("a consumer's requests today (its daily quota) are a range from the day's start on that consumer's requests", async () => {
    await db.store.requests.countSubmittedSince('billing-bot', dayStart);
    expect(db.plansOf(/COUNT\(\*\) AS n FROM requests/)).toEqual(['SEARCH requests USING COVERING INDEX requests_consumer_created (consumer_id=? AND created_at>?)']);
  });

  it('due request_expiring warnings, first page and next, are a range on open requests with a warning to send', async () => {
    await db.store.requests.dueWarnings(T0, null, 100);
    await db.store.requests.dueWarnings(T0, { at: T0 - HOUR, id: 'req_5' }, 100);
    const plans = db.plansOf(/warn_at <=/);
    expect(plans).toHaveLength(2);
    for (const plan of plans) expect(plan).toMatch(/^SEARCH requests USING INDEX requests_warn \(warn_at/);
  });

  it("a consumer's open requests in one status are a range on its open requests only", async () => {
    await db.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1', { status: 'accepted' }));
      await tx.requests.insert(request('req_2', { status: 'asked' }));
      await tx.requests.insert(request('req_3', { status: 'proposed' }));
      await tx.requests.insert(request('req_4', { status: 'asked', consumer_id: 'other' }));
    });
    db.forget();
    const ids = async (status: 'asked' | 'proposed' | 'accepted') => (await db.store.requests.list({ consumer_id: 'ledger', status, limit: 20 })).map((r) => r.id);
    expect(await ids('asked')).toEqual(['req_2']);
    expect(await ids('proposed')).toEqual(['req_3']);
    expect(await ids('accepted')).toEqual(['req_1']);
    await db.store.requests.list({ consumer_id: 'ledger', status: 'asked', limit: 20, before: 'req_9' });
    const [asked, proposed, , next] = db.plansOf(/FROM requests/);
    expect(asked).toBe('SEARCH requests USING INDEX requests_consumer_open (consumer_id=?)');
    expect(proposed).toBe(asked);
    expect(next).toBe('SEARCH requests USING INDEX requests_consumer_open (consumer_id=? AND id<?)');
  });

  it('retention picks finished requests by their last change, oldest first, on the index of finished requests', async () => {
    await db.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1', { status: 'accepted', updated_at: T0 - 400 * DAY }));
      await tx.requests.insert(request('req_2', { status: 'asked', updated_at: T0 - 400 * DAY }));
    });
    db.forget();
    const cutoffs = { outboxBefore: null, requestsBefore: T0 - 365 * DAY };
    expect((await db.store.retention.countPrunable(cutoffs)).requests).toBe(1);
    expect((await pruneOnce(db.store, cutoffs, 500)).requests).toBe(1);
    // Every search of the requests table (the count, the selection, the counts of what belongs to them)
    // other than by primary key (the batch's check of what was picked, and its deletes).
    const byKey = /^SEARCH requests USING (COVERING )?INDEX sqlite_autoindex_requests_1 \(id=\?\)$/;
    const steps = db
      .plansOf(/FROM requests/)
      .flatMap((plan) => plan.split(' | '))
      .filter((step) => /^(SEARCH|SCAN) requests\b/.test(step) && !byKey.test(step));
    expect(steps.length).toBeGreaterThan(2);
    for (const step of steps) expect(step).toBe('SEARCH requests USING INDEX requests_finished (updated_at<?)');
    // The batch is taken in the index's order: no sort of every finished request first.
    const [selection, ...more] = db.plansOf(/^SELECT id FROM requests INDEXED BY requests_finished/);
    expect(more).toEqual([]);
    expect(selection).not.toMatch(/TEMP B-TREE/);
  });

  it('a text search the newest requests cannot answer reads what the full-text index finds for its rarest word, alone, and the requests not indexed yet by rowid, with or without a cursor and other filters', async () => {
    await db.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1', { question: 'Refund window?' }));
      await tx.requests.insert(request('req_2', { question: 'Invoice?' }));
      for (let i = 0; i < NEWEST_FIRST; i++) await tx.requests.insert(request(`req_3${String(i).padStart(5, '0')}`, { question: 'Which ledger?' }));
    });
    db.forget();
    expect((await db.store.requests.list({ text: 'refu', limit: 20 })).map((r) => r.id)).toEqual(['req_1']);
    expect((await db.store.requests.list({ text: 'which refu', limit: 20 })).map((r) => r.id)).toEqual([]);
    expect((await db.store.requests.list({ text: 'which', limit: 20 })).map((r) => r.id)).toHaveLength(20);
    // A common word fills its page from the newest requests: no index, no sort.
    expect(db.plansOf(/FROM requests_search/)).toHaveLength(2);
    expect(db.plansOf(/^SELECT id, question, asked_question FROM requests\s+ORDER BY id DESC LIMIT/)).toEqual(Array(3).fill('SCAN requests USING INDEX sqlite_autoindex_requests_1'));
    db.forget();
    await db.store.requests.list({ text: 'refu', limit: 20 });
    await db.store.requests.list({ text: 'refu', limit: 20, before: 'req_5' });
    await db.store.requests.list({ text: 'refu', status: 'asked', topic: 'billing', limit: 20 });
    await db.store.requests.list({ text: 'refu', status: 'asked', consumer_id: 'ledger', limit: 20 });
    const plans = db.plansOf(/FROM requests_search/);
    expect(plans).toHaveLength(4);
    for (const plan of plans) {
      expect(plan).toContain('SCAN requests_search VIRTUAL TABLE');
      expect(plan).toContain('SEARCH requests USING INTEGER PRIMARY KEY (rowid=?)');
      // The requests written since the last indexing: a range of rowids, not a walk through every id.
      expect(plan).toContain('SEARCH requests USING INTEGER PRIMARY KEY (rowid>?)');
      expect(plan).not.toMatch(/SCAN requests\b/);
    }
  });

  it('a session is checked by its key on every cookie-authenticated request; revoking and pruning read one index range', async () => {
    await db.store.transaction((tx) => tx.sessions.start({ id: 's1', name: 'rita@acme.test', role: 'reviewer', started_at: T0, expires_at: T0 + 12 * HOUR, last_seen: T0 }));
    db.forget();
    expect(await db.store.sessions.live('s1', T0 + HOUR)).toBeDefined();
    expect(await db.store.sessions.anyExpired(T0 + HOUR)).toBe(false);
    await db.store.transaction(async (tx) => {
      await tx.sessions.endAllOf('rita@acme.test', T0 + HOUR);
      await tx.sessions.removeExpired(T0 + HOUR);
    });
    expect(db.plansOf(/FROM sessions/)).toEqual([
      'SEARCH sessions USING INDEX sqlite_autoindex_sessions_1 (id=?)',
      'SEARCH sessions USING COVERING INDEX sessions_expires (expires_at<?)',
      'SEARCH sessions USING INDEX sessions_name (name=?)',
      'SEARCH sessions USING INDEX sessions_expires (expires_at<?)',
    ]);
  });
});
