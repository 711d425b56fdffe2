import { pruneOnce } from '../../src/store/retention.js';
import { describe, expect, it } from 'vitest';
import type { RequestQuery } from '../../src/store/store.js';
import { ENGINES } from './engines.js';
import { DAY, request, T0 } from './records.js';
import { useEngine } from './use-engine.js';

/** Requests in id order (ids sort by age); every engine must find exactly the same ones for each search. */
const REQUESTS = [
  request('req_01', { question: 'Refund 100% of INVOICE_7?', status: 'accepted' }),
  request('req_02', { question: 'Refund 1000 of invoice 7?', status: 'queued' }),
  request('req_03', { question: 'Résumé ÉTÉ: who signs?', topic: 'hr' }),
  request('req_04', { question: 'Other thing', asked_question: 'Which refund window applies to pods?', consumer_id: 'crm', topic: 'crm' }),
  request('req_05', { question: 'Is a partial refund AND a credit note NOT allowed, or NEAR the limit?' }),
  request('req_06', { question: `A long word ${'x'.repeat(300)}y ends here` }),
  request('req_07', { question: 'Décomposé re\u0301sume\u0301 (written with combining accents)' }),
  request('req_08', { question: 'Kubernetes pods: refunds for idle nodes?', status: 'accepted' }),
];

const CASES: Array<[what: string, query: Omit<RequestQuery, 'limit'> & { limit?: number }, found: string[]]> = [
  ['case is ignored', { text: 'REFUND' }, ['req_08', 'req_05', 'req_04', 'req_02', 'req_01']],
  ['a word is a prefix of a word, never a middle', { text: 'fund' }, []],
  ['a prefix finds every longer word', { text: 'refu' }, ['req_08', 'req_05', 'req_04', 'req_02', 'req_01']],
  ['punctuation separates words', { text: 'invoice_7' }, ['req_02', 'req_01']],
  ['punctuation alone in a query is not searched for', { text: '100%' }, ['req_02', 'req_01']],
  ['every word must be found', { text: 'refund 1000' }, ['req_02']],
  ['words need not be adjacent nor in order', { text: 'window pods' }, ['req_04']],
  ['accents are kept, case folds beyond ASCII', { text: 'RÉSUMÉ été' }, ['req_03']],
  ['an unaccented word does not find an accented one', { text: 'resume' }, []],
  ['accents written with combining marks equal their composed form', { text: 'Re\u0301sume\u0301 décomposé' }, ['req_07']],
  ['the drafted question is searched', { text: 'window' }, ['req_04']],
  ['operator-like words are plain words', { text: 'and not near or' }, ['req_05']],
  ['a long word is found by its start', { text: 'x'.repeat(200) }, ['req_06']],
  ['no match', { text: 'invoices' }, []],
  ['a query with no word finds nothing', { text: '%_ ?!' }, []],
  ['with a status', { text: 'refund', status: 'accepted' }, ['req_08', 'req_01']],
  ['with a topic', { text: 'refund', topic: 'crm' }, ['req_04']],
  ['with a consumer', { text: 'refund', consumer_id: 'ledger', status: 'asked' }, ['req_05']],
  ['first page, newest first', { text: 'refund', limit: 2 }, ['req_08', 'req_05']],
  ['next page after the cursor', { text: 'refund', limit: 2, before: 'req_05' }, ['req_04', 'req_02']],
  ['last page', { text: 'refund', limit: 2, before: 'req_02' }, ['req_01']],
];

describe.each(ENGINES)('$name store: text search over requests', (engine) => {
  const e = useEngine(engine);

  // With newer requests that match nothing, a search cannot be answered from the newest requests alone.
  // Searched twice: as soon as written, and once the engine's background upkeep (SQLite's text index
  // catching up) is done; and with part of the requests indexed and the rest written after.
  it.each([0, 1200])('finds requests whose question or drafted question has a word starting with each searched word, newest first (%i newer requests)', async (newer) => {
    const write = (records: ReturnType<typeof request>[]) => e.store.transaction(async (tx) => {
      for (const r of records) await tx.requests.insert(r);
    });
    const search = async () => {
      const found: Array<[string, string[]]> = [];
      for (const [what, query] of CASES) found.push([what, (await e.store.requests.list({ limit: 50, ...query })).map((r) => r.id)]);
      return found;
    };
    const expected = CASES.map(([what, , ids]) => [what, ids]);
    await write(REQUESTS.slice(0, 4));
    await e.store.settle();
    await write(REQUESTS.slice(4));
    await write(Array.from({ length: newer }, (_, i) => request(`req_9${String(i).padStart(5, '0')}`, { question: 'Filler: qqq zzz?', status: 'failed', topic: 'zz' })));
    expect(await search()).toEqual(expected);
    await e.store.settle();
    expect(await search()).toEqual(expected);
  });

  it.each(['written', 'settled'])('a new drafted question replaces the old one in search, in the same transaction (request %s before)', async (state) => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1', { question: 'Refund?', drafting: true }));
      await tx.requests.update('req_1', { drafting: false, asked_question: 'Which refund window applies?' });
      expect((await tx.requests.list({ text: 'window', limit: 10 })).map((r) => r.id)).toEqual(['req_1']);
    });
    if (state === 'settled') await e.store.settle();
    await e.store.transaction((tx) => tx.requests.update('req_1', { asked_question: 'Which refund period applies?' }));
    const ids = async (text: string) => (await e.store.requests.list({ text, limit: 10 })).map((r) => r.id);
    expect(await ids('window')).toEqual([]);
    expect(await ids('period')).toEqual(['req_1']);
    expect(await ids('refund')).toEqual(['req_1']);
  });

  // The pruned request was the newest: its successor may take its place in the table.
  it.each(['written', 'settled'])('a pruned request is no longer found, and its words never find a later request (request %s before)', async (state) => {
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_1', { question: 'Old refund question', status: 'accepted', updated_at: T0 - 400 * DAY }));
    });
    if (state === 'settled') await e.store.settle();
    await pruneOnce(e.store, { outboxBefore: null, requestsBefore: T0 - 365 * DAY }, 500);
    await e.store.transaction((tx) => tx.requests.insert(request('req_2', { question: 'New question' })));
    const ids = async (text: string) => (await e.store.requests.list({ text, limit: 10 })).map((r) => r.id);
    expect([await ids('refund'), await ids('new')]).toEqual([[], ['req_2']]);
    await e.store.settle();
    expect([await ids('refund'), await ids('new')]).toEqual([[], ['req_2']]);
  });

  // More than a search reads newest first, so the search turns to the index for what is written after.
  it('requests written after the newest ones were pruned are found, before and after the index catches up', async () => {
    const filler = (id: string, old: boolean) => request(id, { question: 'Filler: qqq zzz?', ...(old ? { status: 'accepted' as const, updated_at: T0 - 400 * DAY } : {}) });
    await e.store.transaction(async (tx) => {
      for (let i = 0; i < 1100; i++) await tx.requests.insert(filler(`req_1${String(i).padStart(5, '0')}`, i >= 500));
    });
    await e.store.settle();
    await pruneOnce(e.store, { outboxBefore: null, requestsBefore: T0 - 365 * DAY }, 1000);
    await e.store.transaction(async (tx) => {
      await tx.requests.insert(request('req_2', { question: 'New question' }));
      for (let i = 0; i < 1000; i++) await tx.requests.insert(filler(`req_3${String(i).padStart(5, '0')}`, false));
    });
    const ids = async (text: string) => (await e.store.requests.list({ text, limit: 10 })).map((r) => r.id);
    expect(await ids('new')).toEqual(['req_2']);
    await e.store.settle();
    expect(await ids('new')).toEqual(['req_2']);
  });
});
