import { describe, expect, it } from 'vitest';
import type { AnswerQuery } from '../../src/store/store.js';
import { answerEntry, DAY, T0 } from './records.js';
import { ENGINES } from './engines.js';
import { useEngine } from './use-engine.js';

describe.each(ENGINES)('$name store: the answer library', (engine) => {
  const e = useEngine(engine);
  const search = (q: Partial<AnswerQuery>) => e.store.answers.search({ staleBefore: T0 - 90 * DAY, limit: 50, ...q });
  const ids = async (q: Partial<AnswerQuery>) => (await search(q)).items.map((a) => a.id);

  it('reads an entry back as written; retiring is once only and keeps who, when and why', async () => {
    const curated = answerEntry('ans_1', { consumer_id: null, request_id: null, proposal_id: null, structured: null, reuse_count: 2 });
    await e.store.transaction(async (tx) => {
      await tx.answers.insert(curated);
      await tx.answers.insert(answerEntry('ans_2'));
    });
    expect(await e.store.answers.get('ans_1')).toEqual(curated);
    expect(await e.store.answers.get('ans_2')).toEqual(answerEntry('ans_2'));
    expect(await e.store.answers.get('ans_9')).toBeUndefined();

    const retirement = { reason: 'The plan changed.', by: 'rita', at: T0 + DAY };
    expect(await e.store.transaction((tx) => tx.answers.retire('ans_2', retirement))).toBe(true);
    expect(await e.store.transaction((tx) => tx.answers.retire('ans_2', { ...retirement, by: 'other', at: T0 + 2 * DAY }))).toBe(false);
    expect(await e.store.transaction((tx) => tx.answers.retire('ans_9', retirement))).toBe(false);
    expect(await e.store.answers.get('ans_2')).toEqual(answerEntry('ans_2', { status: 'retired', retired: retirement }));
  });

  it('without words: newest first, filtered by topic, consumer and status (stale = active but verified too long ago), paged by cursor', async () => {
    await e.store.transaction(async (tx) => {
      await tx.answers.insert(answerEntry('ans_1', { verified_at: T0 - 91 * DAY }));
      await tx.answers.insert(answerEntry('ans_2', { topic: 'payments', consumer_id: 'crm' }));
      await tx.answers.insert(answerEntry('ans_3', { consumer_id: null, request_id: null, proposal_id: null }));
      await tx.answers.insert(answerEntry('ans_4'));
      await tx.answers.retire('ans_4', { reason: 'wrong', by: 'rita', at: T0 });
    });
    expect(await ids({})).toEqual(['ans_4', 'ans_3', 'ans_2', 'ans_1']);
    expect(await ids({ topic: 'payments' })).toEqual(['ans_2']);
    expect(await ids({ consumerId: 'ledger' })).toEqual(['ans_4', 'ans_1']);
    expect(await ids({ status: 'active' })).toEqual(['ans_3', 'ans_2']);
    expect(await ids({ status: 'stale' })).toEqual(['ans_1']);
    expect(await ids({ status: 'retired' })).toEqual(['ans_4']);

    const first = await search({ limit: 3 });
    expect(first.items.map((a) => a.id)).toEqual(['ans_4', 'ans_3', 'ans_2']);
    expect(first.items.every((a) => a.score === undefined)).toBe(true);
    const second = await search({ limit: 3, cursor: first.next_cursor! });
    expect(second).toMatchObject({ items: [{ id: 'ans_1' }], next_cursor: null });
  });

  it('with words: any word matches, the most relevant first with a higher score, words split the same way on every engine', async () => {
    await e.store.transaction(async (tx) => {
      await tx.answers.insert(answerEntry('ans_1', { question: 'How do refunds work for annual plans?', answer: 'Pro-rated, within 30 days.' }));
      await tx.answers.insert(answerEntry('ans_2', { question: 'Can a REFUND be split across invoices?', answer: 'Yes: one refund per invoice, each refund noted.' }));
      await tx.answers.insert(answerEntry('ans_3', { question: 'Which currency do invoices use?', answer: 'Euros, since 2024.' }));
      await tx.answers.insert(answerEntry('ans_4', { question: 'Résumé of the Straße rules', answer: 'See the wiki, café 2ème étage.' }));
      await tx.answers.insert(answerEntry('ans_5', { question: 'Refund timing', answer: 'Refund in 5 days.', topic: 'payments' }));
    });
    const refund = await search({ q: 'refund?' });
    expect(refund.items.map((a) => a.id).sort()).toEqual(['ans_2', 'ans_5']);
    expect(refund.items[0]!.score).toBeGreaterThan(0);
    expect(refund.items[0]!.score!).toBeGreaterThanOrEqual(refund.items[1]!.score!);

    // The entry matching both words ranks above those matching one.
    const both = await ids({ q: 'refund, INVOICES' });
    expect(both[0]).toBe('ans_2');
    expect(both.sort()).toEqual(['ans_2', 'ans_3', 'ans_5']);

    expect(await ids({ q: 'résumé' })).toEqual(['ans_4']);
    expect(await ids({ q: 'STRASSE' })).toEqual([]);
    expect(await ids({ q: 'straße 2ème' })).toEqual(['ans_4']);
    expect(await ids({ q: 'pro' })).toEqual(['ans_1']);
    expect(await ids({ q: 'refunds' })).toEqual(['ans_1']);
    expect(await ids({ q: 'refund', topic: 'payments' })).toEqual(['ans_5']);
    expect(await ids({ q: 'nothing here' })).toEqual([]);
    expect(await ids({ q: '?! —' })).toEqual([]);
    // Words an engine would read as its own syntax are only words.
    expect(await ids({ q: 'refund OR NOT AND | & ! " \' * :' })).toHaveLength(2);
  });

  it('counts entries by status (stale worked out from staleBefore) and sums how often they were reused', async () => {
    expect(await e.store.answers.stats(T0 - 90 * DAY)).toEqual({ active: 0, stale: 0, retired: 0, reuse_accepted: 0 });
    await e.store.transaction(async (tx) => {
      await tx.answers.insert(answerEntry('ans_1', { reuse_count: 3 }));
      await tx.answers.insert(answerEntry('ans_2', { verified_at: T0 - 91 * DAY, reuse_count: 1 }));
      await tx.answers.insert(answerEntry('ans_3', { reuse_count: 2 }));
      await tx.answers.insert(answerEntry('ans_4'));
      await tx.answers.retire('ans_3', { reason: 'wrong', by: 'rita', at: T0 });
    });
    // A retired entry's past reuse still counts: those asks were spared.
    expect(await e.store.answers.stats(T0 - 90 * DAY)).toEqual({ active: 2, stale: 1, retired: 1, reuse_accepted: 6 });
    expect(await e.store.answers.stats(T0 - 100 * DAY)).toEqual({ active: 3, stale: 0, retired: 1, reuse_accepted: 6 });
  });

  it('pages a ranked search by position, and only committed entries are found', async () => {
    await e.store.transaction(async (tx) => {
      for (let i = 1; i <= 5; i++) await tx.answers.insert(answerEntry(`ans_${i}`, { question: `Refund ${'refund '.repeat(i)}question`, answer: 'x' }));
    });
    await expect(
      e.store.transaction(async (tx) => {
        await tx.answers.insert(answerEntry('ans_6', { question: 'Refund rolled back' }));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const pages: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await search({ q: 'refund', limit: 2, cursor });
      pages.push(...page.items.map((a) => a.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(pages.sort()).toEqual(['ans_1', 'ans_2', 'ans_3', 'ans_4', 'ans_5']);
    expect(await e.store.answers.get('ans_6')).toBeUndefined();
  });

  it('reuse candidates: active entries of the same topic and kind whose question shares a word, stale ones last, capped by the index', async () => {
    await e.store.transaction(async (tx) => {
      await tx.answers.insert(answerEntry('ans_1', { question: 'How long is the refund window?', answer: 'Thirty days.' }));
      await tx.answers.insert(answerEntry('ans_2', { question: 'Refund window for annual plans', answer: 'Pro-rated.' }));
      await tx.answers.insert(answerEntry('ans_3', { question: 'Which currency?', answer: 'Refund in euros, window closes.' }));
      await tx.answers.insert(answerEntry('ans_4', { question: 'Refund window?', topic: 'payments' }));
      await tx.answers.insert(answerEntry('ans_5', { question: 'Refund window?', kind: 'policy' }));
      await tx.answers.insert(answerEntry('ans_6', { question: 'Refund window?', verified_at: T0 - 91 * DAY }));
      await tx.answers.insert(answerEntry('ans_7', { question: 'Refund window?' }));
      await tx.answers.retire('ans_7', { reason: 'wrong', by: 'rita', at: T0 });
    });
    const candidates = (words: string[], limit = 50) =>
      e.store.answers.reuseCandidates({ topic: 'billing', kind: 'answer', words, staleBefore: T0 - 90 * DAY, limit });
    const ids = async (words: string[], limit?: number) => (await candidates(words, limit)).map((a) => a.id).sort();
    expect(await ids(['refund', 'window'])).toEqual(['ans_1', 'ans_2', 'ans_6']);
    // The stale entry matches the words best and still comes after every fresh one.
    expect((await candidates(['refund', 'window'])).map((a) => a.id).at(-1)).toBe('ans_6');
    expect((await candidates(['refund', 'window'], 2)).map((a) => a.id).sort()).toEqual(['ans_1', 'ans_2']);
    expect(await ids(['annual'])).toEqual(['ans_2']);
    expect(await ids(['euros'])).toEqual([]);
    expect(await ids([])).toEqual([]);
    expect(await ids(['refund'], 1)).toHaveLength(1);
    const own = (consumerId: string) =>
      e.store.answers.reuseCandidates({ topic: 'billing', kind: 'answer', words: ['refund'], staleBefore: T0 - 90 * DAY, limit: 50, consumerId });
    expect((await own('ledger')).map((a) => a.id).sort()).toEqual(['ans_1', 'ans_2', 'ans_6']);
    expect(await own('crm')).toEqual([]);
    await e.store.transaction((tx) => tx.answers.insert(answerEntry('ans_8', { question: 'Refund rules', consumer_id: null, request_id: null, proposal_id: null })));
    expect((await own('crm')).map((a) => a.id)).toEqual(['ans_8']);
    expect((await candidates(['annual']))[0]).toEqual(answerEntry('ans_2', { question: 'Refund window for annual plans', answer: 'Pro-rated.' }));
  });

  it('refreshes an active entry: verified again, its answer replaced and searchable; a retired one is left alone', async () => {
    await e.store.transaction(async (tx) => {
      await tx.answers.insert(answerEntry('ans_1', { question: 'Refund window?', answer: 'Thirty days.', verified_at: T0 - 91 * DAY }));
      await tx.answers.insert(answerEntry('ans_2', { question: 'Refund window?' }));
      await tx.answers.retire('ans_2', { reason: 'wrong', by: 'rita', at: T0 });
    });
    const refreshed = { answer: 'Thirty calendar days.', structured: { text: 'Thirty calendar days.' }, verifiedAt: T0 + DAY };
    expect(await e.store.transaction((tx) => tx.answers.refresh('ans_1', refreshed))).toBe(true);
    expect(await e.store.transaction((tx) => tx.answers.refresh('ans_2', refreshed))).toBe(false);
    expect(await e.store.transaction((tx) => tx.answers.refresh('ans_9', refreshed))).toBe(false);
    expect(await e.store.answers.get('ans_1')).toMatchObject({ answer: 'Thirty calendar days.', structured: { text: 'Thirty calendar days.' }, verified_at: T0 + DAY, question: 'Refund window?' });
    expect((await e.store.answers.get('ans_2'))!.verified_at).not.toBe(T0 + DAY);
    const found = await e.store.answers.search({ q: 'calendar', staleBefore: T0 - 90 * DAY, limit: 10 });
    expect(found.items.map((a) => a.id)).toEqual(['ans_1']);
    expect((await e.store.answers.search({ q: 'thirty', staleBefore: T0 - 90 * DAY, limit: 10 })).items.map((a) => a.id)).toEqual(['ans_1']);
  });

  it('counts each reuse of an entry', async () => {
    await e.store.transaction((tx) => tx.answers.insert(answerEntry('ans_1')));
    await e.store.transaction(async (tx) => {
      await tx.answers.countReuse('ans_1');
      await tx.answers.countReuse('ans_1');
    });
    expect((await e.store.answers.get('ans_1'))!.reuse_count).toBe(2);
  });

  it('lists each topic and kind with an active entry once, stale ones included, retired ones not', async () => {
    expect(await e.store.answers.activeTopics()).toEqual([]);
    await e.store.transaction(async (tx) => {
      await tx.answers.insert(answerEntry('ans_1'));
      await tx.answers.insert(answerEntry('ans_2', { verified_at: T0 - 400 * DAY }));
      await tx.answers.insert(answerEntry('ans_3', { kind: 'structured' }));
      await tx.answers.insert(answerEntry('ans_4', { topic: 'payroll' }));
      await tx.answers.retire('ans_4', { reason: 'Outdated.', by: 'rita', at: T0 });
    });
    const sorted = (await e.store.answers.activeTopics()).sort((a, b) => `${a.topic} ${a.kind}`.localeCompare(`${b.topic} ${b.kind}`));
    expect(sorted).toEqual([{ topic: 'billing', kind: 'answer' }, { topic: 'billing', kind: 'structured' }]);
  });
});
