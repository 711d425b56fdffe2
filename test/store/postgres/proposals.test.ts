import { describe, expect, it } from 'vitest';
import { proposal, T0 } from '../records.js';
import { aLockWaiter, gate, insertRequestRow, useTwoInstances } from './two-instances.js';

const decision = (by: string) => ({ decided_by: by, note: null, reason: null, decided_at: T0 + 1 });

describe('PostgreSQL proposals shared by two instances', () => {
  const s = useTwoInstances();

  it('two instances deciding one proposal take turns: the second reads it only once the first committed, and sees it decided', async () => {
    await insertRequestRow(s.a, 'req_1');
    await s.a.transaction((tx) => tx.proposals.insert(proposal('prop_1', 'req_1')));
    const read = gate();
    const commit = gate();
    const first = s.a.transaction(async (tx) => {
      const seen = await tx.proposals.get('prop_1');
      read.open();
      await commit.promise;
      await tx.proposals.decide('prop_1', 'accepted', decision('alice'));
      return seen?.status;
    });
    await read.promise;
    const second = s.b.transaction(async (tx) => (await tx.proposals.get('prop_1'))?.status);

    const order = await Promise.race([aLockWaiter(s.a), second.then(() => 'read without waiting')]);
    commit.open();

    expect(order).toBe('waits');
    expect(await first).toBe('pending');
    expect(await second).toBe('accepted');
  });

  it('a read outside a transaction takes no lock: it answers at once with what was committed', async () => {
    await insertRequestRow(s.a, 'req_1');
    await s.a.transaction((tx) => tx.proposals.insert(proposal('prop_1', 'req_1')));
    const read = gate();
    const commit = gate();
    const first = s.a.transaction(async (tx) => {
      await tx.proposals.get('prop_1');
      await tx.proposals.decide('prop_1', 'rejected', decision('bob'));
      read.open();
      await commit.promise;
    });
    await read.promise;

    expect((await s.b.proposals.get('prop_1'))?.status).toBe('pending');
    commit.open();
    await first;
    expect((await s.b.proposals.get('prop_1'))?.decision).toEqual(decision('bob'));
  });

  it('an overdue review card is taken by one instance only, though both look at once', async () => {
    for (const id of ['req_1', 'req_2']) await insertRequestRow(s.a, id, T0);
    await insertRequestRow(s.a, 'req_later', T0 + 60_000);
    await s.a.transaction(async (tx) => {
      for (const id of ['req_2', 'req_1', 'req_later']) {
        await tx.proposals.insert(proposal(`prop_${id}`, id));
        await tx.proposals.setReviewCard(`prop_${id}`, { channel: 'C_REVIEW', ts: `1.${id}` });
      }
    });
    const taken = gate();
    const commit = gate();
    const first = s.a.transaction(async (tx) => {
      const ids = await tx.proposals.takeOverdueReviewCards(T0);
      taken.open();
      await commit.promise;
      return ids;
    });
    await taken.promise;
    const second = s.b.transaction((tx) => tx.proposals.takeOverdueReviewCards(T0));
    await aLockWaiter(s.a);
    commit.open();

    expect(await first).toEqual(['prop_req_1', 'prop_req_2']);
    expect(await second).toEqual([]);
    expect(await s.b.transaction((tx) => tx.proposals.takeOverdueReviewCards(T0 + 60_000))).toEqual(['prop_req_later']);
  });

  it('posting a review card again moves it and makes it count as not yet overdue', async () => {
    await insertRequestRow(s.a, 'req_1', T0);
    await s.a.transaction(async (tx) => {
      await tx.proposals.insert(proposal('prop_1', 'req_1'));
      await tx.proposals.setReviewCard('prop_1', { channel: 'C_REVIEW', ts: '1.1' });
    });
    expect(await s.a.transaction((tx) => tx.proposals.takeOverdueReviewCards(T0))).toEqual(['prop_1']);

    await s.a.transaction((tx) => tx.proposals.setReviewCard('prop_1', { channel: 'C_REVIEW', ts: '2.1' }));

    expect(await s.a.proposals.reviewCard('prop_1')).toEqual({ channel: 'C_REVIEW', ts: '2.1' });
    expect(await s.a.transaction((tx) => tx.proposals.takeOverdueReviewCards(T0))).toEqual(['prop_1']);
  });
});
