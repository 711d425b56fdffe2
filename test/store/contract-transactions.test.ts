import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/domain/records.js';
import { Conflict } from '../../src/store/errors.js';
import { ENGINES } from './engines.js';
import { ask, audit, event, message, proposal, request, T0 } from './records.js';
import { useEngine } from './use-engine.js';

/** Requests by status as counted, leaving out statuses counted zero (an engine may list them or not). */
const requestsByStatus = async (counts: Promise<Record<string, number>>) => Object.fromEntries(Object.entries(await counts).filter(([, n]) => n > 0));

describe.each(ENGINES)('$name store: transactions', (engine) => {
  const e = useEngine(engine);

  it('a proposal is decided exactly once when ten decisions race for it; the stored decision is the winner’s', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1', { status: 'proposed', proposal_id: 'prop_1' }));
      await tx.proposals.insert(proposal('prop_1', 'req_1'));
    });
    const attempts = Array.from({ length: 10 }, (_, i) => ({
      status: i % 2 === 0 ? ('accepted' as const) : ('rejected' as const),
      decision: { decided_by: `reviewer_${i}`, note: `note ${i}`, reason: i % 2 === 0 ? null : `reason ${i}`, decided_at: T0 + i } satisfies Decision,
    }));

    const results = await Promise.all(attempts.map((a) => e.store.transaction((tx) => tx.proposals.decide('prop_1', a.status, a.decision))));

    expect(results.filter((won) => won)).toHaveLength(1);
    const winner = attempts[results.indexOf(true)]!;
    expect(await e.store.proposals.get('prop_1')).toEqual({ ...proposal('prop_1', 'req_1'), status: winner.status, decision: winner.decision });
    expect(await e.store.proposals.pending()).toEqual([]);
    expect((await e.store.metrics.counts()).pendingProposals).toBe(0);
  });

  it('an error thrown by the work rejects with that error and leaves nothing; transactions queued beside it still commit', async () => {
    const failure = new Error('the work failed half-way');
    const before = e.store.transaction((tx) => tx.requests.insert(request('req_before')));
    const failing = e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_bad'));
      await tx.requests.appendAudit(audit('req_bad', T0));
      await tx.asks.insert(ask('ask_bad', 'req_bad', 'dana'));
      await tx.outbox.insertEvent(event('evt_bad', 'req_bad'));
      await tx.outbox.enqueueMessage(message('msg_bad', { request_id: 'req_bad', ask_id: 'ask_bad' }));
      throw failure;
    });
    const after = e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_after', { status: 'queued' }));
      return 'committed';
    });

    const [b, f, a] = await Promise.allSettled([before, failing, after]);
    expect(b.status).toBe('fulfilled');
    expect(f).toEqual({ status: 'rejected', reason: failure });
    expect((f as PromiseRejectedResult).reason).toBe(failure);
    expect(a).toEqual({ status: 'fulfilled', value: 'committed' });

    expect(await e.store.requests.get('req_bad')).toBeUndefined();
    expect(await e.store.requests.audit('req_bad')).toEqual([]);
    expect(await e.store.asks.get('ask_bad')).toBeUndefined();
    expect(await e.store.asks.listFor('req_bad')).toEqual([]);
    expect(await e.store.outbox.events('req_bad')).toEqual([]);
    expect(await e.store.outbox.messages('req_bad')).toEqual([]);
    expect(await e.store.outbox.askElements('ask_bad')).toBeNull();
    expect((await e.store.requests.get('req_before'))?.id).toBe('req_before');
    expect((await e.store.requests.get('req_after'))?.id).toBe('req_after');
    expect(await requestsByStatus(e.store.metrics.requestsByStatus())).toEqual({ asked: 1, queued: 1 });
    expect((await e.store.metrics.counts()).pendingMessages).toBe(0);
  });

  it('a second ask under an existing id is a Conflict, and its transaction leaves nothing', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1'));
      await tx.asks.insert(ask('ask_1', 'req_1', 'dana'));
    });

    const error = await e.store
      .transaction(async (tx) => {
        await tx.requests.insert(request('req_2'));
        await tx.outbox.enqueueMessage(message('msg_2', { request_id: 'req_2' }));
        await tx.asks.insert(ask('ask_1', 'req_2', 'lee'));
      })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(Conflict);
    expect((error as Conflict).code).toBe('conflict');
    expect(await e.store.requests.get('req_2')).toBeUndefined();
    expect(await e.store.outbox.messages('req_2')).toEqual([]);
    expect(await e.store.asks.get('ask_1')).toEqual(ask('ask_1', 'req_1', 'dana'));
    // The store goes on taking writes.
    await e.store.transaction((tx) => tx.requests.insert(request('req_3')));
    expect((await e.store.requests.get('req_3'))?.id).toBe('req_3');
  });

  it('a write that fails is reported by the next read as itself, not as a later statement’s failure', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1'));
      await tx.asks.insert(ask('ask_1', 'req_1', 'dana'));
    });
    const error = await e.store
      .transaction(async (tx) => {
        await tx.asks.insert(ask('ask_1', 'req_1', 'lee'));
        await tx.requests.update('req_1', { status: 'escalated', updated_at: T0 + 1 });
        await tx.requests.get('req_1');
        throw new Error('not reached: the read must fail');
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Conflict);
    expect((await e.store.requests.get('req_1'))?.status).toBe('asked');
  });

  it('a savepoint whose write fails is undone alone (its audit rows too): the transaction goes on and commits the rest, in order', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1'));
      await tx.asks.insert(ask('ask_1', 'req_1', 'dana'));
    });
    const outcome = await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_2'));
      await tx.requests.appendAudit(audit('req_2', T0, { type: 'received' }));
      const inner = await tx
        .savepoint(async (sp) => {
          await sp.requests.appendAudit(audit('req_2', T0, { type: 'routed' }));
          await sp.asks.insert(ask('ask_1', 'req_2', 'lee'));
        })
        .then(() => 'kept', (caught: unknown) => (caught instanceof Conflict ? 'undone' : caught));
      await tx.savepoint((sp) => sp.requests.appendAudit(audit('req_2', T0, { type: 'held' })));
      await tx.asks.insert(ask('ask_2', 'req_2', 'lee'));
      await tx.requests.appendAudit(audit('req_2', T0, { type: 'asked' }));
      return inner;
    });
    expect(outcome).toBe('undone');
    expect((await e.store.requests.get('req_2'))?.id).toBe('req_2');
    expect((await e.store.requests.audit('req_2')).map((a) => a.type)).toEqual(['received', 'held', 'asked']);
    expect((await e.store.asks.listFor('req_2')).map((a) => a.id)).toEqual(['ask_2']);
  });

  it('rows written to several tables with no read between are all kept, each table in the order written, however many', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_old'));
    });
    const many = 1_300; // enough rows that an engine sending writes together must split them
    await e.store.transaction(async (tx) => {
      // A child of an existing request first, then new requests each followed by their own rows.
      await tx.requests.appendAudit(audit('req_old', T0, { type: 'deduped' }));
      for (let i = 0; i < many; i++) {
        await tx.requests.insert(request(`req_${i}`));
        await tx.requests.appendAudit(audit(`req_${i}`, T0 + i, { type: 'received' }));
        await tx.requests.appendAudit(audit('req_old', T0 + i, { type: 'deduped', data: { n: i } }));
      }
      await tx.asks.insert(ask('ask_1', `req_${many - 1}`, 'dana'));
      await tx.outbox.enqueueMessage(message('msg_1', { request_id: `req_${many - 1}`, ask_id: 'ask_1' }));
      await tx.requests.appendAudit(audit(`req_${many - 1}`, T0 + many, { type: 'asked' }));
    });
    expect((await e.store.requests.audit('req_old')).map((a) => a.data.n ?? 'first')).toEqual(['first', ...Array.from({ length: many }, (_, i) => i)]);
    expect((await e.store.requests.audit(`req_${many - 1}`)).map((a) => a.type)).toEqual(['received', 'asked']);
    expect((await e.store.requests.get(`req_${many - 1}`))?.id).toBe(`req_${many - 1}`);
    expect((await e.store.asks.listFor(`req_${many - 1}`)).map((a) => a.id)).toEqual(['ask_1']);
    expect((await e.store.outbox.messages(`req_${many - 1}`)).map((m) => m.id)).toEqual(['msg_1']);
    expect(Object.values(await e.store.metrics.requestsByStatus()).reduce((a, b) => a + b, 0)).toBe(many + 1);
  });

  it('text written together in one transaction comes back exactly as written: quotes, backslashes, braces, commas, NULL, empty', async () => {
    const questions = ['He said "hi" \\ then {left}, then "}"?', 'NULL', '', 'C:\\temp\\"x"\\', 'naïve — 日本語 ✓', ' , {} "" \\\\ '];
    await e.store.transaction(async (tx) => {
      for (const [i, question] of questions.entries()) {
        await tx.requests.insert(request(`req_${i}`, { question, dedup_key: i === 1 ? 'NULL' : null, context: { quote: question } }));
        await tx.requests.appendAudit(audit(`req_${i}`, T0 + i, { data: { said: question } }));
      }
    });
    for (const [i, question] of questions.entries()) {
      const stored = await e.store.requests.get(`req_${i}`);
      expect(stored?.question).toBe(question);
      expect(stored?.context).toEqual({ quote: question });
      expect(stored?.dedup_key).toBe(i === 1 ? 'NULL' : null);
      expect((await e.store.requests.audit(`req_${i}`)).map((a) => a.data)).toEqual([{ said: question }]);
    }
  });

  it('an ask message comes back as written, claimed or listed: its elements, newlines inside them, and its text', async () => {
    const elements = ['Hi Dana,', 'The bot asks because:\nline two', 'Question: "{x}, y"?', '', 'Reply briefly.', 'Recorded.'];
    const joined = elements.join('\n');
    const written = [
      message('msg_ask', { request_id: 'req_1', ask_id: 'ask_1', purpose: 'ask', text: joined, elements }),
      // Text that is not the elements joined, and a notice whose text is empty, keep their own.
      message('msg_other', { request_id: 'req_1', ask_id: 'ask_1', purpose: 'ask', text: 'Just the question', elements }),
      message('msg_empty', { request_id: 'req_1', text: '' }),
    ];
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1'));
      await tx.asks.insert(ask('ask_1', 'req_1', 'dana'));
      for (const m of written) await tx.outbox.enqueueMessage(m);
    });
    const byId = (rows: Array<{ id: string; text: string; elements: string[] | null }>) =>
      Object.fromEntries(rows.map((m) => [m.id, { text: m.text, elements: m.elements }]));
    const expected = byId(written);
    expect(byId(await e.store.outbox.messages('req_1'))).toEqual(expected);
    expect(await e.store.outbox.askElements('ask_1')).toEqual(elements);
    const claimed = await e.store.transaction((tx) => tx.outbox.claimMessages({ now: T0, owner: 'inst_a', leaseUntil: T0 + 15_000, limit: 10 }));
    expect(byId(claimed)).toEqual(expected);
  });

  it('reads outside a transaction see only committed state: not its writes while it runs, all of them once it resolves', async () => {
    const other = await e.another();
    const seen = await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1'));
      await tx.asks.insert(ask('ask_1', 'req_1', 'dana'));
      await tx.requests.update('req_1', { status: 'escalated', updated_at: T0 + 1 });
      return {
        inside: (await tx.requests.get('req_1'))?.status,
        insideAsks: (await tx.asks.listFor('req_1')).length,
        outside: await e.store.requests.get('req_1'),
        outsideAsk: await e.store.asks.get('ask_1'),
        outsideCounts: await requestsByStatus(e.store.metrics.requestsByStatus()),
        otherProcess: await other.requests.get('req_1'),
      };
    });
    expect(seen).toEqual({ inside: 'escalated', insideAsks: 1, outside: undefined, outsideAsk: undefined, outsideCounts: {}, otherProcess: undefined });

    expect(await e.store.requests.get('req_1')).toEqual(request('req_1', { status: 'escalated', updated_at: T0 + 1 }));
    expect(await e.store.asks.get('ask_1')).toEqual(ask('ask_1', 'req_1', 'dana'));
    expect((await other.requests.get('req_1'))?.status).toBe('escalated');
  });

  it('a read after a transaction sees what it committed; a read that fails leaves the commit standing; a failed transaction gives no read', async () => {
    const { value, read } = await e.store.transactionThenRead(
      async (tx) => {
        await tx.requests.insert(request('req_1'));
        await tx.asks.insert(ask('ask_1', 'req_1', 'dana'));
        await tx.asks.insert(ask('ask_2', 'req_1', 'eve', { state: 'answered' }));
        return ['ask_1', 'ask_2', 'ask_missing'];
      },
      (reads, ids) => reads.chat.askPlaces(ids),
    );
    expect(value).toEqual(['ask_1', 'ask_2', 'ask_missing']);
    expect(read).toEqual(
      new Map([
        ['ask_1', { state: 'open', ref: null, firstRef: null }],
        ['ask_2', { state: 'answered', ref: null, firstRef: null }],
      ]),
    );

    const failedRead = await e.store.transactionThenRead(
      (tx) => tx.requests.insert(request('req_2')),
      async () => {
        throw new Error('read failed');
      },
    );
    expect(failedRead).toEqual({ value: undefined, read: undefined });
    expect(await e.store.requests.get('req_2')).toEqual(request('req_2'));

    let readRan = false;
    const failing = e.store.transactionThenRead(
      async (tx) => {
        await tx.requests.insert(request('req_3'));
        throw new Error('work failed');
      },
      async () => {
        readRan = true;
      },
    );
    await expect(failing).rejects.toThrow('work failed');
    expect(readRan).toBe(false);
    expect(await e.store.requests.get('req_3')).toBeUndefined();

    // The commit itself fails (a proposal on a request that does not exist): rejected, whatever the read found.
    const refused = e.store.transactionThenRead(
      (tx) => tx.proposals.insert(proposal('prop_orphan', 'req_none')),
      (reads) => reads.proposals.get('prop_orphan'),
    );
    await expect(refused).rejects.toThrow();
    expect(await e.store.proposals.get('prop_orphan')).toBeUndefined();
  });

  it('a read outside sees the state committed before the transaction, not the transaction’s change to it', async () => {
    await e.store.transaction((tx) => tx.requests.insert(request('req_1', { status: 'asked' })));
    const outside = await e.store.transaction(async (tx) => {
      await tx.requests.update('req_1', { status: 'failed', reason: { code: 'cancelled', message: 'Cancelled.' }, updated_at: T0 + 1 });
      return (await e.store.requests.get('req_1'))?.status;
    });
    expect(outside).toBe('asked');
    expect(await e.store.requests.get('req_1')).toMatchObject({ status: 'failed', reason: { code: 'cancelled', message: 'Cancelled.' } });
  });
});
