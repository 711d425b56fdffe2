import { afterEach, describe, expect, it } from 'vitest';
import { KNOWN_KEYS_REFRESH_MS } from '../../src/service/engine/known-keys.js';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';
import { answerEntry } from '../store/records.js';

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

const submit = async (question: string) => {
  const id = (await t.call('POST', '/api/v1/requests', submitBody({ question }))).body.request_id as string;
  return (await t.call('GET', `/api/v1/requests/${id}`)).body.status as string;
};

describe('which topics the library has entries for', () => {
  it('an entry added here is offered at once; one written by another instance within the refresh period', async () => {
    t = await buildTestApp();
    expect(await submit('Who approves a refund above the limit?')).toBe('asked');
    await t.call('POST', '/api/v1/answers', { topic: 'billing', question: 'How long is the grace period for disputed invoices?', answer: '30 days.', expert_id: 'dana' });
    expect(await submit('What is the grace period for disputed invoices?')).toBe('proposed');

    // Another instance on the same database adds an entry on a topic this one has none of.
    await t.service.store.transaction((tx) => tx.answers.insert(answerEntry('ans_other', { topic: 'payroll', question: 'When is payroll run each month?', verified_at: t.clock.now() })));
    const payroll = async (question: string) => {
      const id = (await t.call('POST', '/api/v1/requests', submitBody({ topic: 'payroll', question }))).body.request_id as string;
      return (await t.call('GET', `/api/v1/requests/${id}`)).body.status as string;
    };
    expect(await payroll('Payroll: when is it run each month?')).toBe('failed'); // nobody takes payroll, and the library is not read yet
    t.clock.advance(KNOWN_KEYS_REFRESH_MS);
    expect(await payroll('When each month is payroll run?')).toBe('proposed');
  });
});
