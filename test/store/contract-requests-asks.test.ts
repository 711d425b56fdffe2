import { describe, expect, it } from 'vitest';
import { ENGINES } from './engines.js';
import { ask, audit, HOUR, message, MINUTE, proposal, request, T0 } from './records.js';
import { useEngine } from './use-engine.js';

describe.each(ENGINES)('$name store: requests and asks read back as written', (engine) => {
  const e = useEngine(engine);

  it('lists requests newest id first with each filter (text search: contract-search.test.ts)', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1', { question: 'Refund 100% of INVOICE_7?' }));
      await tx.requests.insert(request('req_2', { question: 'Refund 1000 of invoice 7?', status: 'queued' }));
      await tx.requests.insert(request('req_4', { question: 'Résumé ÉTÉ', status: 'failed' }));
      await tx.requests.insert(request('req_3', { question: 'Other', asked_question: 'What about invoice_7\\b?', consumer_id: 'crm', topic: 'crm' }));
    });
    const ids = async (q: Parameters<typeof e.store.requests.list>[0]) => (await e.store.requests.list(q)).map((r) => r.id);

    expect(await ids({ limit: 10 })).toEqual(['req_4', 'req_3', 'req_2', 'req_1']);
    expect(await ids({ limit: 10, status: 'queued' })).toEqual(['req_2']);
    expect(await ids({ limit: 10, consumer_id: 'crm', topic: 'crm' })).toEqual(['req_3']);
    expect(await ids({ limit: 1, before: 'req_3' })).toEqual(['req_2']);
    // A consumer's requests in one status, open or finished, and one topic's page after a cursor.
    expect(await ids({ limit: 10, consumer_id: 'ledger', status: 'queued' })).toEqual(['req_2']);
    expect(await ids({ limit: 10, consumer_id: 'ledger', status: 'asked' })).toEqual(['req_1']);
    expect(await ids({ limit: 10, consumer_id: 'ledger', status: 'failed' })).toEqual(['req_4']);
    expect(await ids({ limit: 10, consumer_id: 'crm', status: 'asked', before: 'req_4' })).toEqual(['req_3']);
    expect(await ids({ limit: 10, consumer_id: 'crm', status: 'queued' })).toEqual([]);
    expect(await ids({ limit: 10, topic: 'billing', before: 'req_4' })).toEqual(['req_2', 'req_1']);
  });

  it('a patch changes only the fields it names; subscribers (the submitter first), audit and held requests read back in order', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1', { held: true, created_at: T0 + MINUTE, target_experts: ['maria'] }));
      await tx.requests.insert(request('req_2', { held: true }));
      await tx.asks.insert(ask('ask_1', 'req_2', 'maria', { state: 'queued', sent_at: null }));
      await tx.requests.update('req_1', { status: 'failed', reason: { code: 'no_expert_found', message: 'nobody' }, drafting: true, updated_at: T0 + HOUR });
      // The submitter (ledger) is subscribed by the insert.
      expect(await tx.requests.addSubscriber('req_1', 'ledger', 'dedup', T0)).toBe(false);
      expect(await tx.requests.addSubscriber('req_1', 'crm', 'dedup', T0 + HOUR)).toBe(true);
      expect(await tx.requests.addSubscriber('req_1', 'ledger', 'dedup', T0 + 2)).toBe(false);
      await tx.requests.appendAudit(audit('req_1', T0, { type: 'received' }));
      await tx.requests.appendAudit(audit('req_1', T0 + 1, { type: 'asked' }));
    });

    expect(await e.store.requests.get('req_1')).toEqual(
      request('req_1', {
        held: true, created_at: T0 + MINUTE, target_experts: ['maria'],
        status: 'failed', reason: { code: 'no_expert_found', message: 'nobody' }, drafting: true, updated_at: T0 + HOUR,
      }),
    );
    expect(await e.store.requests.subscribers('req_1')).toEqual(['ledger', 'crm']);
    expect((await e.store.requests.audit('req_1')).map((a) => a.type)).toEqual(['received', 'asked']);
    expect(await e.store.requests.held()).toEqual([{ id: 'req_1', topic: 'billing', target_experts: ['maria'], created_at: T0 + MINUTE }]);
  });

  it('reads the queue\'s view of several requests, and every proposal or the sent-back ones of several requests, in one call each', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1', { asked_question: 'Reworded?', drafting: true, status: 'proposed', created_at: T0 + 5 }));
      await tx.requests.insert(request('req_2', { context: { asked_because: 42, ticket: 'T-1' } }));
      await tx.requests.insert(request('req_3', { context: { ticket: 'T-2' }, consumer_id: 'crm', kind: 'review', topic: 'crm' }));
      await tx.proposals.insert(proposal('prop_1', 'req_1', { created_at: T0 + MINUTE }));
      await tx.proposals.insert(proposal('prop_2', 'req_2'));
      await tx.proposals.insert(proposal('prop_0', 'req_1', { created_at: T0 }));
      await tx.proposals.insert(proposal('prop_3', 'req_2', { created_at: T0 + 1 }));
      await tx.proposals.decide('prop_0', 'rejected', { decided_by: 'ana', note: 'shorter', reason: 'returned', decided_at: T0 + 1 });
      await tx.proposals.decide('prop_3', 'rejected', { decided_by: 'ana', note: 'wrong', reason: 'rejected', decided_at: T0 + 2 });
    });
    const summaries = await e.store.requests.summaries(['req_3', 'req_1', 'req_2', 'req_missing']);
    expect([...summaries.keys()].sort()).toEqual(['req_1', 'req_2', 'req_3']);
    expect(summaries.get('req_1')).toEqual({
      id: 'req_1', consumer_id: 'ledger', kind: 'answer', topic: 'billing', question: 'Question of req_1?', asked_question: 'Reworded?',
      drafting: true, asked_because: 'contract test', status: 'proposed', created_at: T0 + 5,
    });
    // asked_because only when the context holds it as text.
    expect(summaries.get('req_2')!.asked_because).toBeNull();
    expect(summaries.get('req_3')).toMatchObject({ consumer_id: 'crm', kind: 'review', topic: 'crm', asked_because: null, drafting: false, asked_question: null });
    expect(await e.store.requests.summaries([])).toEqual(new Map());

    const proposals = await e.store.proposals.listForMany(['req_1', 'req_2', 'req_3']);
    expect(proposals.get('req_1')).toEqual(await e.store.proposals.listFor('req_1'));
    expect(proposals.get('req_1')!.map((p) => p.id)).toEqual(['prop_0', 'prop_1']);
    expect(proposals.get('req_2')!.map((p) => p.id)).toEqual(['prop_2', 'prop_3']);
    expect(proposals.has('req_3')).toBe(false);
    // Sent back, not merely rejected.
    const returned = await e.store.proposals.returnedFor(['req_1', 'req_2', 'req_3']);
    expect([...returned.keys()]).toEqual(['req_1']);
    expect(returned.get('req_1')).toEqual([await e.store.proposals.get('prop_0')]);
    expect(await e.store.proposals.returnedFor([])).toEqual(new Map());
  });

  it("reads the asks and the subscribers of several requests in one call each, as each request's own reads give them", async () => {
    await e.store.transaction(async (tx) => {
      for (const id of ['req_1', 'req_2', 'req_3']) await tx.requests.insert(request(id));
      await tx.asks.insert(ask('ask_b', 'req_1', 'maria', { created_at: T0 + MINUTE }));
      await tx.asks.insert(ask('ask_a', 'req_1', 'ann', { created_at: T0 }));
      await tx.asks.insert(ask('ask_c', 'req_2', 'ann'));
      await tx.requests.addSubscriber('req_1', 'crm', 'dedup', T0 + HOUR);
    });
    const asks = await e.store.asks.listForMany(['req_1', 'req_2', 'req_3', 'req_missing']);
    expect(asks.get('req_1')!.map((a) => a.id)).toEqual(['ask_a', 'ask_b']);
    expect(asks.get('req_1')).toEqual(await e.store.asks.listFor('req_1'));
    expect(asks.get('req_2')).toEqual(await e.store.asks.listFor('req_2'));
    expect([...asks.keys()].sort()).toEqual(['req_1', 'req_2']);
    const subscribers = await e.store.requests.subscribersOfMany(['req_1', 'req_3', 'req_missing']);
    expect(subscribers.get('req_1')).toEqual(await e.store.requests.subscribers('req_1'));
    expect(subscribers.get('req_1')).toEqual(['ledger', 'crm']);
    expect(subscribers.get('req_3')).toEqual(await e.store.requests.subscribers('req_3'));
    expect(subscribers.has('req_missing')).toBe(false);
    expect(await e.store.asks.listForMany([])).toEqual(new Map());
  });

  it('rows written together in one transaction read back exactly as written, whatever their text holds', async () => {
    // Written in one go (PostgreSQL sends a transaction's inserts as one JSON array of rows): each text
    // must survive JSON's quoting and escaping, and a null must stay null.
    const texts = ['say "hi", {then} bye', 'back\\slash \\"', 'NULL', '', 'Ünïcødé ✓ 💡', 'a,b', '{}', 'multi\nline\ttab', '\\u0041 "]', 'null', '12345678901234567890'];
    const requests = texts.map((question, i) =>
      request(`req_${i}`, { question, context: { asked_because: question, n: i, nested: [question, null] }, asked_question: i % 2 ? null : question, dedup_key: i % 3 ? null : question }),
    );
    const asks = texts.map((instructions, i) => ask(`ask_${i}`, `req_${i}`, i % 2 ? 'maria' : 'ann', { instructions: i % 2 ? instructions : null }));
    const messages = texts.map((text, i) => message(`msg_${i}`, { request_id: `req_${i}`, ask_id: `ask_${i}`, text, elements: i % 2 ? null : [text, 'two'] }));
    await e.store.transaction(async (tx) => {
      for (let i = 0; i < texts.length; i++) {
        await tx.requests.appendAudit(audit(`req_${i}`, T0 + i, { type: 'received', data: { text: texts[i], i } }));
        await tx.asks.insert(asks[i]!);
        await tx.outbox.enqueueMessage(messages[i]!);
        await tx.requests.insert(requests[i]!);
      }
    });
    for (let i = 0; i < texts.length; i++) {
      expect(await e.store.requests.get(`req_${i}`)).toEqual(requests[i]);
      expect(await e.store.asks.listFor(`req_${i}`)).toEqual([asks[i]]);
      expect(await e.store.outbox.messages(`req_${i}`)).toEqual([messages[i]]);
      expect(await e.store.requests.audit(`req_${i}`)).toEqual([audit(`req_${i}`, T0 + i, { type: 'received', data: { text: texts[i], i } })]);
    }
  });

  it('a text JSON cannot carry (a lone surrogate) is written beside the others, its character replaced; the rest read back exactly', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_odd', { question: 'before \ud800 after' }));
      await tx.requests.appendAudit(audit('req_odd', T0, { data: { text: 'before \udc00 after' } }));
      await tx.requests.insert(request('req_plain', { question: 'plain "text"' }));
      await tx.asks.insert(ask('ask_plain', 'req_plain', 'ann', { instructions: 'say "hi"' }));
    });
    expect((await e.store.requests.get('req_odd'))?.question).toMatch(/^before \ufffd+ after$/);
    expect(await e.store.requests.audit('req_odd')).toHaveLength(1);
    expect((await e.store.requests.get('req_plain'))?.question).toBe('plain "text"');
    expect((await e.store.asks.listFor('req_plain')).map((a) => a.instructions)).toEqual(['say "hi"']);
  });

  it('keeps the stale library entry a request refreshes, and nothing for one that refreshes none', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1', { refreshes: 'ans_1' }));
      await tx.requests.insert(request('req_2'));
    });
    expect(await e.store.requests.get('req_1')).toEqual(request('req_1', { refreshes: 'ans_1' }));
    expect(await e.store.requests.get('req_2')).not.toHaveProperty('refreshes');
  });

  it('finds the ask a reply belongs to, the queued asks, and an expert’s mute', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1'));
      await tx.requests.insert(request('req_2', { created_at: T0 - HOUR }));
      await tx.asks.insert(ask('ask_1', 'req_1', 'maria', { sent_at: T0 + MINUTE }));
      await tx.asks.insert(ask('ask_2', 'req_2', 'maria', { sent_at: T0 }));
      await tx.asks.insert(ask('ask_3', 'req_2', 'ann', { state: 'queued', sent_at: null, send_after: T0 + HOUR, instructions: 'shorter' }));
      await tx.asks.update('ask_1', { state: 'escalated', escalate_at: null });
      await tx.asks.setMuted('ann', true, T0);
    });

    expect((await e.store.asks.findForReply('maria', null))?.id).toBe('ask_2');
    expect(await e.store.asks.findForReply('maria', 'req_1')).toEqual(ask('ask_1', 'req_1', 'maria', { sent_at: T0 + MINUTE, state: 'escalated', escalate_at: null }));
    expect((await e.store.asks.openOf('maria')).map((a) => a.id)).toEqual(['ask_2']);
    expect((await e.store.asks.listFor('req_2')).map((a) => a.id)).toEqual(['ask_2', 'ask_3']);
    const waiting = { ...ask('ask_3', 'req_2', 'ann', { state: 'queued', sent_at: null, send_after: T0 + HOUR, instructions: 'shorter' }), request_created_at: T0 - HOUR };
    expect(await e.store.asks.queued(['ann', 'maria'])).toEqual([waiting]);
    expect(await e.store.asks.queued(null)).toEqual([waiting]);
    expect(await e.store.asks.dueQueued(T0)).toEqual([]);
    expect(await e.store.asks.dueQueued(T0 + HOUR)).toEqual([waiting]);
    expect(await e.store.asks.isMuted('ann')).toBe(true);
    expect(await e.store.asks.isMuted('maria')).toBe(false);
  });
});
