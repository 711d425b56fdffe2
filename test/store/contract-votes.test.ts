import { describe, expect, it } from 'vitest';
import type { VoteRecord } from '../../src/store/store.js';
import { ENGINES } from './engines.js';
import { pruneOnce } from '../../src/store/retention.js';
import { DAY, MINUTE, proposal, request, T0 } from './records.js';
import { useEngine } from './use-engine.js';

const vote = (proposalId: string, person: string, over: Partial<VoteRecord> = {}): VoteRecord => ({
  proposal_id: proposalId, by: person, person, decision: 'accept', note: null, reason: null, required: false, at: T0, ...over,
});

/** Reviewers' votes on proposals a review rule covers: one per person and proposal, read back in the order cast. */
describe.each(ENGINES)('$name store: votes', (engine) => {
  const e = useEngine(engine);

  it('a vote is recorded once per person; a second by the same person changes nothing, also from another process', async () => {
    const b = await e.another();
    expect(await e.store.transaction((tx) => tx.votes.add(vote('p1', 'email:ana@acme.test', { by: 'ana@acme.test', note: 'fine', required: true })))).toBe(true);
    expect(await b.transaction((tx) => tx.votes.add(vote('p1', 'email:ana@acme.test', { decision: 'reject', reason: 'no', at: T0 + MINUTE })))).toBe(false);
    expect(await b.transaction((tx) => tx.votes.add(vote('p1', 'token:sec-bot', { decision: 'reject', reason: 'wrong', at: T0 + MINUTE })))).toBe(true);
    expect(await b.votes.list('p1')).toEqual([
      { proposal_id: 'p1', by: 'ana@acme.test', person: 'email:ana@acme.test', decision: 'accept', note: 'fine', reason: null, required: true, at: T0 },
      { proposal_id: 'p1', by: 'token:sec-bot', person: 'token:sec-bot', decision: 'reject', note: null, reason: 'wrong', required: false, at: T0 + MINUTE },
    ]);
    expect(await e.store.votes.list('p2')).toEqual([]);
  });

  it('the votes of many proposals come in one read, by proposal; clearing one proposal’s leaves the others', async () => {
    await e.store.transaction(async (tx) => {
      await tx.votes.add(vote('p1', 'a', { at: T0 + MINUTE }));
      await tx.votes.add(vote('p1', 'b'));
      await tx.votes.add(vote('p2', 'a'));
    });
    const many = await e.store.votes.listMany(['p1', 'p2', 'p3']);
    expect([...many.keys()].sort()).toEqual(['p1', 'p2']);
    expect(many.get('p1')!.map((v) => v.person)).toEqual(['b', 'a']);
    expect(await e.store.votes.listMany([])).toEqual(new Map());
    expect(await e.store.transaction((tx) => tx.votes.clear('p1'))).toBe(2);
    expect(await e.store.votes.list('p1')).toEqual([]);
    expect(await e.store.votes.list('p2')).toHaveLength(1);
  });

  it('a pruned request takes its proposals’ votes with it', async () => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('r1', { status: 'accepted', updated_at: T0 }));
      await tx.proposals.insert(proposal('p1', 'r1'));
      await tx.votes.add(vote('p1', 'a'));
    });
    await pruneOnce(e.store, { outboxBefore: null, requestsBefore: T0 + DAY }, 10);
    expect(await e.store.votes.list('p1')).toEqual([]);
  });
});
