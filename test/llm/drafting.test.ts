import { beforeEach, describe, expect, it } from 'vitest';
import { composeAsk } from '../../src/core/compose-ask.js';
import { EXAMPLE_EXPERTS, submitBody } from '../support/build-test-app.js';
import { later, type Behaviour, type FakeLlm } from '../support/fake-llm.js';
import { useLlmKit } from '../support/llm-kit.js';
import { HOUR, type SchedulerKit } from '../support/scheduler-kit.js';

const RAW = 'What is the grace period for disputed invoices?';
const DRAFTED = 'From memory: What is the grace period for disputed invoices?';
const BECAUSE = 'the invoice total does not match the ledger';

/** The whole ask as the code writes it, with `question` as element 3. */
const askText = (expertName: string, question: string) =>
  composeAsk({ orgName: 'Acme', expertName, consumerId: 'billing-bot', askedBecause: BECAUSE, question });
const messageOf = (block: string) => block.split('\n').slice(1).map((line) => line.replace(/^ {3}/, '')).join('\n');

const llm = useLlmKit();
let fake: FakeLlm;
let kit: SchedulerKit;
beforeEach(() => void (fake = llm.fake));

async function start(extra: Record<string, unknown> = {}, config: Record<string, unknown> = {}): Promise<SchedulerKit> {
  return (kit = await llm.start(extra, config));
}

describe('drafting the outbound question (SPEC §13)', () => {
  it('the first ask carries the drafted question as element 3; the other five elements are the code’s', async () => {
    await start();
    const id = await kit.submit({ context: { asked_because: BECAUSE, ticket: 'T-4711', customer_email: 'someone@example.com' } });

    const messages = kit.t.messages();
    expect(messages).toHaveLength(1);
    expect(messageOf(messages[0]!)).toContain(askText('Dana Smith', DRAFTED));
    const request = await kit.request(id);
    expect(request).toMatchObject({ status: 'asked', question: RAW, asked_question: DRAFTED });

    // Sent to the provider: topic, kind, asked_because and the question. Nothing else of context.
    const [call] = fake.callsOf('drafted_question');
    expect(call!.data).toEqual({ topic: 'billing', kind: 'answer', asked_because: BECAUSE, question: RAW });
    expect(JSON.stringify(call!.body)).not.toMatch(/T-4711|someone@example\.com/);
    expect(call!.body).toMatchObject({
      model: 'fake-model-1',
      response_format: { type: 'json_schema', json_schema: { name: 'drafted_question', strict: true } },
    });

    const types = (await kit.audit(id)).map((e) => e.type);
    expect(types).toEqual(['received', 'routed', 'llm_call', 'asked']);
    const [llmCall] = await kit.auditOf(id, 'llm_call');
    expect(llmCall!.data).toEqual({
      stage: 'draft',
      model: 'fake-model-1',
      latency_ms: expect.any(Number),
      usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number) },
      outcome: 'ok',
      used: true,
    });
    // Never the prompt text.
    expect(JSON.stringify(llmCall)).not.toContain('grace period');
  });

  it('an escalation ask carries the same drafted question, drafted once', async () => {
    await start();
    const id = await kit.submit();
    await kit.tickAfter(2 * HOUR);
    expect(kit.recipients()).toEqual(['dana', 'lee']);
    expect(messageOf(kit.t.messages()[1]!)).toContain(askText('Lee Chen', DRAFTED));
    expect(fake.callsOf('drafted_question')).toHaveLength(1);
    expect(await kit.asks(id)).toEqual([['dana', 'escalated'], ['lee', 'open']]);
  });

  it('an ask held by quiet hours goes out with the drafted question when they end', async () => {
    await start();
    const id = await kit.submit({ routing_policy: { quiet_hours: ['09:00', '11:00'] } });
    expect(kit.t.messages()).toHaveLength(0);
    expect((await kit.request(id)).asked_question).toBe(DRAFTED);
    expect(await kit.auditOf(id, 'quiet_hours_wait')).toHaveLength(1);

    await kit.tickAt('2026-11-23T11:00:00.000Z');
    expect(kit.t.messages()).toHaveLength(1);
    expect(messageOf(kit.t.messages()[0]!)).toContain(askText('Dana Smith', DRAFTED));
  });

  it('every target expert is asked the drafted question', async () => {
    await start();
    await kit.submit({ target_experts: ['dana', 'sam'] });
    expect(kit.recipients()).toEqual(['dana', 'sam']);
    expect(messageOf(kit.t.messages()[1]!)).toContain(askText('Sam Okafor', DRAFTED));
  });

  it('POST /requests does not wait for the LLM; the first ask waits for the draft, at most llm.timeout', async () => {
    await start({ timeout: '30s' });
    const slow = later();
    fake.on('drafted_question', slow.behaviour);

    const res = await kit.t.callNow('POST', '/api/v1/requests', submitBody());
    expect(res.body).toMatchObject({ status: 'queued' });
    const id = res.body.request_id;
    await fake.waitForCalls('drafted_question');
    const waiting = (await kit.t.callNow('GET', `/api/v1/requests/${id}`)).body;
    expect(waiting).toMatchObject({ status: 'queued', asked_question: null, asks: [{ expert_id: 'dana', state: 'queued', sent_at: null }] });
    expect(kit.t.messages()).toHaveLength(0);

    // 29 s later it still waits; at 30 s the ask goes out with the raw question.
    kit.t.clock.advance(29_000);
    await kit.t.service.tick();
    await kit.t.service.messages.idle();
    expect(kit.t.messages()).toHaveLength(0);
    kit.t.clock.advance(1_000);
    await kit.t.service.tick();
    await kit.t.service.messages.idle();
    expect(kit.t.messages()).toHaveLength(1);
    expect(messageOf(kit.t.messages()[0]!)).toContain(askText('Dana Smith', RAW));
    // (callNow: reading the audit must not wait for the call still in flight.)
    const trail = (await kit.t.callNow('GET', `/api/v1/audit?request_id=${id}`)).body as Array<{ type: string; data: unknown }>;
    const fallback = trail.find((e) => e.type === 'llm_fallback');
    expect(fallback!.data).toEqual({ stage: 'draft', model: 'fake-model-1', error: 'no draft within llm.timeout (PT30S)' });

    // The late draft is recorded as a call, and not used: the expert already has the raw question.
    slow.release({ json: { question: 'Too late, is it?' } });
    await kit.t.service.idle();
    expect((await kit.auditOf(id, 'llm_call'))[0]!.data).toMatchObject({ stage: 'draft', outcome: 'ok', used: false });
    expect(await kit.request(id)).toMatchObject({ status: 'asked', asked_question: RAW });
    expect(kit.t.messages()).toHaveLength(1);
  });

  it('a provider that hangs holds at most llm.concurrency calls, and every request is asked at its deadline', async () => {
    await start({ timeout: '30s', concurrency: 2 });
    fake.on('drafted_question', { hang: true });
    const ids: string[] = [];
    for (const question of ['Grace period?', 'Refund limit?', 'Invoice currency?']) {
      ids.push((await kit.t.callNow('POST', '/api/v1/requests', submitBody({ question, target_experts: ['lee'] }))).body.request_id);
    }
    await fake.waitForCalls('drafted_question', 2);
    // The API answers meanwhile; nothing has been asked yet.
    expect((await kit.t.callNow('GET', `/api/v1/requests/${ids[2]}`)).body).toMatchObject({ status: 'queued', asked_question: null });

    kit.t.clock.advance(30_000);
    await kit.t.service.tick();
    await kit.t.service.messages.idle();
    expect(kit.t.messages().map((m) => /Question: (.*)/.exec(m)![1])).toEqual(['Grace period?', 'Refund limit?', 'Invoice currency?']);
    // The third request's draft never got a slot before its deadline: it was not sent to the provider at all.
    expect(fake.callsOf('drafted_question').map((c) => c.data.question).sort()).toEqual(['Grace period?', 'Refund limit?']);
  });

  it('a request cancelled while drafting is never asked', async () => {
    await start();
    const slow = later();
    fake.on('drafted_question', slow.behaviour);
    const id = (await kit.t.callNow('POST', '/api/v1/requests', submitBody())).body.request_id;
    await fake.waitForCalls('drafted_question');
    expect((await kit.t.callNow('POST', `/api/v1/requests/${id}/cancel`, {})).body.status).toBe('failed');
    slow.release({ json: { question: 'Still wanted?' } });
    await kit.t.service.idle();
    expect(kit.t.messages()).toHaveLength(0);
    expect((await kit.auditOf(id, 'llm_call'))[0]!.data).toMatchObject({ used: false });
    expect(await kit.auditOf(id, 'llm_fallback')).toEqual([]);
  });

  it.each<[string, Behaviour, string, Record<string, unknown>?]>([
    ['text that is not JSON', { content: 'Sure! What is the grace period?' }, 'the reply is not JSON'],
    ['output outside the schema', { json: { q: 'What is it?' } }, 'does not match the drafted_question schema'],
    ['two questions', { json: { question: 'What is the grace period? Who approves it?' } }, 'not one question'],
    ['more than 500 characters', { json: { question: `${'x'.repeat(500)}?` } }, 'longer than 500 characters'],
    ['HTTP 500', { status: 500 }, 'HTTP 500'],
    ['HTTP 429 with Retry-After', { status: 429, headers: { 'retry-after': '7' } }, 'HTTP 429 (retry-after 7)'],
    ['a hang past llm.timeout', { hang: true }, 'no answer within llm.timeout (PT0.2S)', { timeout: '200ms' }],
  ])('falls back to the raw question on %s, audited', async (_what, behaviour, error, llm = {}) => {
    await start(llm);
    fake.on('drafted_question', behaviour);
    const id = await kit.submit();

    expect(messageOf(kit.t.messages()[0]!)).toContain(askText('Dana Smith', RAW));
    expect(await kit.request(id)).toMatchObject({ status: 'asked', asked_question: RAW });
    const fallbacks = await kit.auditOf(id, 'llm_fallback');
    expect(fallbacks).toHaveLength(1);
    expect(fallbacks[0]!.data).toMatchObject({ stage: 'draft', model: 'fake-model-1' });
    expect(String(fallbacks[0]!.data.error)).toContain(error);
    const [llmCall] = await kit.auditOf(id, 'llm_call');
    const failed = 'status' in behaviour || 'hang' in behaviour;
    expect(llmCall!.data).toMatchObject({ stage: 'draft', outcome: failed ? 'error' : 'invalid' });
    expect(llmCall!.data.usage === null).toBe(failed);
    expect(fake.callsOf('drafted_question')).toHaveLength(1); // tried once: no retry loop holding the ask back
  });

  it('falls back when the endpoint is down, and says why', async () => {
    await start();
    await fake.close();
    const id = await kit.submit();
    expect(messageOf(kit.t.messages()[0]!)).toContain(askText('Dana Smith', RAW));
    const [fallback] = await kit.auditOf(id, 'llm_fallback');
    expect(String(fallback!.data.error)).toMatch(/^Connection error\. \(.*ECONNREFUSED/);
  });

  it('a held request (every candidate capped) keeps its draft for the ask it gets later', async () => {
    await start({}, { defaults: { max_open_asks_per_expert: 1 }, experts: EXAMPLE_EXPERTS.map((e) => ({ ...e, escalation_to: undefined })) });
    await kit.submit({ target_experts: ['sam'], question: 'Which cluster runs billing?' });
    const held = await kit.submit({ target_experts: ['sam'] });
    expect(kit.recipients()).toEqual(['sam']);
    await kit.reply('sam', 'The blue one.');
    expect(kit.recipients()).toEqual(['sam', 'sam']);
    expect(messageOf(kit.t.messages()[1]!)).toContain(askText('Sam Okafor', DRAFTED));
    expect((await kit.request(held)).status).toBe('asked');
  });
});
