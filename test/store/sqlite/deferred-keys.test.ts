import { afterEach, expect, it, vi } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../../support/build-test-app.js';

let t: TestApp | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await t?.close();
});

// A submit writes its asks before its request row, so references are checked at commit. Every read on
// the writing connection outside a transaction (the search indexer looks for work there each second)
// ends SQLite's deferral; a server idle for a second before its first question answered it 500.
it('the first submit after the server sat idle is stored, not a 500', async () => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  t = await buildTestApp();
  // One second idle: the search indexer checks whether it has work.
  vi.advanceTimersByTime(1_000);
  vi.useRealTimers();
  const res = await t.call('POST', '/api/v1/requests', submitBody());
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect((await t.call('GET', `/api/v1/requests/${res.body.request_id}`)).body.status).toBe('asked');
});
