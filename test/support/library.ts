import { expect } from 'vitest';
import { submitBody, type TestApp } from './build-test-app.js';

/** billing-bot asks `question`, the asked expert answers `answer`, a reviewer accepts: one library entry. */
export async function answeredInto(t: TestApp, question: string, answer: string): Promise<{ requestId: string; answerId: string }> {
  const requestId = (await t.call('POST', '/api/v1/requests', submitBody({ question }))).body.request_id as string;
  const [ask] = await t.store.asks.listFor(requestId);
  const reply = await t.call('POST', '/api/v1/replies', { expert_id: ask!.expert_id, text: answer, request_id: requestId });
  expect((await t.call('POST', `/api/v1/proposals/${reply.body.proposal_id}/accept`, { decided_by: 'rita' })).status).toBe(200);
  const entry = (await t.call('GET', '/api/v1/answers')).body.items.find((a: { request_id: string }) => a.request_id === requestId);
  return { requestId, answerId: entry.id };
}
