import { describe, expect, it } from 'vitest';
import { addCounts, emptyCounts, isEmpty, pruneOnce, type PruneCounts, type RetentionCutoffs } from '../../src/store/retention.js';
import type { MessageRecord } from '../../src/domain/records.js';
import type { Store, Tx } from '../../src/store/store.js';
import { ENGINES } from './engines.js';
import { ask, audit, consumer, DAY, delivery, event, llmJob, message, proposal, request, T0 } from './records.js';
import { useEngine } from './use-engine.js';

const NOW = T0 + 400 * DAY;
const OLD = NOW - 200 * DAY; // past both cutoffs
const MID = NOW - 60 * DAY; // past the outbox cutoff only
const NEW = NOW - DAY; // past neither
const OUTBOX_ONLY: RetentionCutoffs = { outboxBefore: NOW - 30 * DAY, requestsBefore: null };
const BOTH: RetentionCutoffs = { outboxBefore: NOW - 30 * DAY, requestsBefore: NOW - 180 * DAY };
const LIMIT = 2;

/** A run of retention: batches (each picked, then removed in its own transaction) until one removes nothing. */
async function prune(store: Store, cutoffs: RetentionCutoffs): Promise<{ total: PruneCounts; batches: PruneCounts[] }> {
  const total = emptyCounts();
  const batches: PruneCounts[] = [];
  for (let i = 0; i < 100; i++) {
    const batch = await pruneOnce(store, cutoffs, LIMIT);
    if (isEmpty(batch)) return { total, batches };
    batches.push(batch);
    addCounts(total, batch);
  }
  throw new Error('retention never finished');
}

/** A message as the outbox holds it once sent: enqueued, then marked sent at `at`. */
async function sent(tx: Tx, m: MessageRecord, at: number): Promise<void> {
  await tx.outbox.enqueueMessage(m);
  await tx.outbox.markMessagesSent([m.id], at);
}

const counts = (over: Partial<PruneCounts>): PruneCounts => ({ ...emptyCounts(), ...over });
const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id).sort();

/** A finished request with one of each thing that belongs to it, all as old as `at`. */
async function finishedRequest(tx: Tx, id: string, at: number): Promise<void> {
  await tx.requests.insert(request(id, { status: 'accepted', proposal_id: `prop_${id}`, created_at: at, updated_at: at }));
  await tx.requests.addSubscriber(id, 'hook', 'submit', at);
  await tx.asks.insert(ask(`ask_${id}`, id, 'dana', { state: 'answered', created_at: at, sent_at: at, closed_at: at }));
  await tx.chat.setRef(`ask_${id}`, { channel: 'D1', ts: `${at}.${id}` });
  await tx.proposals.insert(proposal(`prop_${id}`, id, { status: 'accepted', created_at: at }));
  for (const type of ['received', 'asked', 'decided'] as const) await tx.requests.appendAudit(audit(id, at, { type }));
  await tx.outbox.insertEvent(event(`evt_${id}`, id, { created_at: at }));
  await tx.outbox.insertDelivery(delivery(`dlv_${id}`, `evt_${id}`, 'hook', id, { state: 'delivered', created_at: at, delivered_at: at }));
  await sent(tx, message(`msg_${id}`, { request_id: id, created_at: at }), at);
  await tx.llmJobs.insert(llmJob(`job_${id}`, id, { state: 'done', created_at: at, finished_at: at }));
}

describe.each(ENGINES)('$name store: retention', (engine) => {
  const e = useEngine(engine);

  it('outbox retention: countPrunable predicts exactly what a run removes, in batches of at most `limit`; pending rows and open requests’ rows stay', async () => {
    await e.store.transaction(async (tx) => {
      await tx.consumers.upsert(consumer('hook'));
      await tx.requests.insert(request('req_done', { status: 'accepted', updated_at: OLD }));
      await tx.outbox.insertEvent(event('evt_1', 'req_done', { created_at: OLD }));
      for (const id of ['dlv_1', 'dlv_2', 'dlv_3']) await tx.outbox.insertDelivery(delivery(id, 'evt_1', 'hook', 'req_done', { state: 'delivered', created_at: OLD, delivered_at: OLD }));
      await tx.outbox.insertEvent(event('evt_2', 'req_done', { created_at: OLD }));
      await tx.outbox.insertDelivery(delivery('dlv_4', 'evt_2', 'hook', 'req_done', { state: 'delivered', created_at: OLD, delivered_at: NEW }));
      await tx.outbox.insertEvent(event('evt_3', 'req_done', { created_at: OLD }));
      await tx.outbox.insertDelivery(delivery('dlv_5', 'evt_3', 'hook', 'req_done', { created_at: OLD }));
      await tx.outbox.insertEvent(event('evt_4', 'req_done', { created_at: OLD }));
      await tx.outbox.insertDelivery(delivery('dlv_6', 'evt_4', 'hook', 'req_done', { state: 'dead', created_at: OLD }));
      for (const id of ['msg_1', 'msg_2', 'msg_3']) await sent(tx, message(id, { request_id: 'req_done', created_at: OLD }), OLD);
      await sent(tx, message('msg_notice', { created_at: OLD }), OLD);
      await sent(tx, message('msg_4', { request_id: 'req_done', created_at: OLD }), NEW);
      await tx.outbox.enqueueMessage(message('msg_5', { request_id: 'req_done', created_at: OLD, next_attempt_at: NOW }));
      await tx.outbox.enqueueMessage(message('msg_6', { request_id: 'req_done', state: 'dead', created_at: OLD }));
      // An open request keeps its events and messages however old.
      await tx.requests.insert(request('req_open', { status: 'asked', created_at: OLD, updated_at: OLD }));
      await tx.outbox.insertEvent(event('evt_open', 'req_open', { type: 'proposal', created_at: OLD }));
      await sent(tx, message('msg_open', { request_id: 'req_open', created_at: OLD }), OLD);
      await tx.requests.insert(request('req_mid', { status: 'rejected', updated_at: MID }));
      await tx.outbox.insertEvent(event('evt_5', 'req_mid', { type: 'proposal_rejected', created_at: MID }));
      await tx.outbox.insertEvent(event('evt_6', 'req_mid', { type: 'proposal_rejected', created_at: NEW }));
      for (const id of ['ce_1', 'ce_2', 'ce_3']) await tx.chat.markEvent(id, OLD);
      await tx.chat.markEvent('ce_new', NEW);
      for (const id of ['job_1', 'job_2', 'job_3']) await tx.llmJobs.insert(llmJob(id, 'req_done', { state: 'done', created_at: OLD, finished_at: OLD }));
      await tx.llmJobs.insert(llmJob('job_new', 'req_done', { state: 'done', created_at: OLD, finished_at: NEW }));
      await tx.llmJobs.insert(llmJob('job_pending', 'req_open', { created_at: OLD }));
    });

    const predicted = await e.store.retention.countPrunable(OUTBOX_ONLY);
    expect(predicted).toEqual(counts({ deliveries: 3, messages: 4, events: 2, chat_events: 3, llm_jobs: 3 }));
    const { total, batches } = await prune(e.store, OUTBOX_ONLY);
    expect(total).toEqual(predicted);
    expect(batches.length).toBeGreaterThan(1);
    for (const batch of batches) for (const n of Object.values(batch)) expect(n).toBeLessThanOrEqual(LIMIT);
    expect(await e.store.retention.countPrunable(OUTBOX_ONLY)).toEqual(emptyCounts());

    expect(ids(await e.store.outbox.events('req_done'))).toEqual(['evt_2', 'evt_3', 'evt_4']);
    expect(ids(await e.store.outbox.messages('req_done'))).toEqual(['msg_4', 'msg_5', 'msg_6']);
    expect(ids(await e.store.outbox.events('req_open'))).toEqual(['evt_open']);
    expect(ids(await e.store.outbox.messages('req_open'))).toEqual(['msg_open']);
    expect(ids(await e.store.outbox.events('req_mid'))).toEqual(['evt_6']);
    expect(ids(await e.store.outbox.deliveries({ limit: 100 }))).toEqual(['dlv_4', 'dlv_5', 'dlv_6']);
    expect(await e.store.llmJobs.get('job_1')).toBeUndefined();
    expect((await e.store.llmJobs.get('job_new'))?.state).toBe('done');
    expect((await e.store.llmJobs.get('job_pending'))?.state).toBe('pending');
    // A processed chat event id that went is new again; the recent one is still known.
    expect(await e.store.transaction((tx) => tx.chat.markEvent('ce_1', NOW))).toBe(true);
    expect(await e.store.transaction((tx) => tx.chat.markEvent('ce_new', NOW))).toBe(false);
    expect(await e.store.metrics.requestsByStatus()).toMatchObject({ accepted: 1, asked: 1, rejected: 1 });
  });

  it('request retention: finished requests go with everything of theirs, at most `limit` a batch; open ones and ones with pending work stay', async () => {
    await e.store.transaction(async (tx) => {
      await tx.consumers.upsert(consumer('hook'));
      for (const id of ['req_a', 'req_b', 'req_c']) await finishedRequest(tx, id, OLD);
      await tx.proposals.insert(proposal('prop_req_a_first', 'req_a', { status: 'rejected', created_at: OLD - 1 }));
      await tx.requests.update('req_b', { status: 'rejected' });
      await tx.requests.update('req_c', { status: 'failed', reason: { code: 'timeout', message: 'No answer in time.' } });
      // Finished long ago, but something of theirs is still to do.
      await finishedRequest(tx, 'req_d', OLD);
      await tx.outbox.insertDelivery(delivery('dlv_req_d_retry', 'evt_req_d', 'hook', 'req_d', { created_at: OLD, next_attempt_at: NOW }));
      await finishedRequest(tx, 'req_e', OLD);
      await tx.outbox.enqueueMessage(message('msg_req_e_pending', { request_id: 'req_e', created_at: OLD, next_attempt_at: NOW }));
      await finishedRequest(tx, 'req_f', OLD);
      await tx.llmJobs.insert(llmJob('job_req_f_pending', 'req_f', { created_at: OLD }));
      // Old but open; finished recently (its outbox rows past the outbox cutoff still go).
      await tx.requests.insert(request('req_open', { status: 'escalated', created_at: OLD, updated_at: OLD }));
      await tx.requests.appendAudit(audit('req_open', OLD));
      await finishedRequest(tx, 'req_recent', MID);
    });

    const predicted = await e.store.retention.countPrunable(BOTH);
    // req_d, req_e and req_f keep their request rows, but their delivered, sent and done rows are old outbox rows.
    expect(predicted).toEqual(counts({ requests: 3, proposals: 4, audit: 9, deliveries: 7, events: 6, messages: 7, llm_jobs: 7 }));
    const { total, batches } = await prune(e.store, BOTH);
    expect(total).toEqual(predicted);
    for (const batch of batches) expect(batch.requests).toBeLessThanOrEqual(LIMIT);
    expect(batches.filter((b) => b.requests > 0)).toHaveLength(2);
    expect(await e.store.retention.countPrunable(BOTH)).toEqual(emptyCounts());

    for (const id of ['req_a', 'req_b', 'req_c']) {
      expect(await e.store.requests.get(id)).toBeUndefined();
      expect(await e.store.requests.audit(id)).toEqual([]);
      expect(await e.store.requests.subscribers(id)).toEqual([]);
      expect(await e.store.asks.listFor(id)).toEqual([]);
      expect(await e.store.chat.ref(`ask_${id}`)).toBeUndefined();
      expect(await e.store.proposals.listFor(id)).toEqual([]);
      expect(await e.store.outbox.events(id)).toEqual([]);
      expect(await e.store.outbox.messages(id)).toEqual([]);
    }
    for (const id of ['req_d', 'req_e', 'req_f', 'req_open', 'req_recent']) expect((await e.store.requests.get(id))?.id).toBe(id);
    expect(await e.store.requests.audit('req_d')).toHaveLength(3);
    expect(await e.store.requests.audit('req_open')).toHaveLength(1);
    expect(ids(await e.store.proposals.listFor('req_recent'))).toEqual(['prop_req_recent']);
    expect(ids(await e.store.outbox.deliveries({ limit: 100 }))).toEqual(['dlv_req_d_retry']);
    expect(ids(await e.store.outbox.messages('req_e'))).toEqual(['msg_req_e_pending']);
    expect((await e.store.llmJobs.get('job_req_f_pending'))?.state).toBe('pending');
    expect(await e.store.chat.ref('ask_req_recent')).toEqual({ channel: 'D1', ts: `${MID}.req_recent`, thread_ts: null });
  });

  it('request retention predicts a finished request’s rows that are not old outbox rows too: a dead delivery, a dropped message, a late delivery', async () => {
    await e.store.transaction(async (tx) => {
      await tx.consumers.upsert(consumer('hook'));
      await finishedRequest(tx, 'req_a', OLD);
      // Its webhook gave up on one event; an ask update was dropped; a replayed delivery went out lately.
      await tx.outbox.insertEvent(event('evt_dead', 'req_a', { type: 'proposal', created_at: OLD }));
      await tx.outbox.insertDelivery(delivery('dlv_dead', 'evt_dead', 'hook', 'req_a', { state: 'dead', created_at: OLD, last_status: 410 }));
      await tx.outbox.enqueueMessage(message('msg_dropped', { request_id: 'req_a', purpose: 'ask_update', state: 'dropped', created_at: OLD }));
      await tx.outbox.insertEvent(event('evt_late', 'req_a', { created_at: OLD }));
      await tx.outbox.insertDelivery(delivery('dlv_late', 'evt_late', 'hook', 'req_a', { state: 'delivered', created_at: OLD, delivered_at: NEW }));
    });

    const predicted = await e.store.retention.countPrunable(BOTH);
    const { total } = await prune(e.store, BOTH);
    expect(await e.store.requests.get('req_a')).toBeUndefined();
    expect(await e.store.outbox.deliveries({ limit: 100 })).toEqual([]);
    expect(total).toEqual(counts({ requests: 1, proposals: 1, audit: 3, deliveries: 3, events: 3, messages: 2, llm_jobs: 1 }));
    expect(predicted).toEqual(total);
  });
});
