import { beforeEach, describe, expect, it } from 'vitest';
import { questionScore } from '../../src/core/match-question.js';
import { submitBody } from '../support/build-test-app.js';
import { later, type FakeLlm } from '../support/fake-llm.js';
import { useLlmKit } from '../support/llm-kit.js';
import type { SchedulerKit } from '../support/scheduler-kit.js';

/** A library entry's question, and a new one on the same subject that the lexical rule alone would not reuse. */
const EARLIER = 'How long is the grace period for disputed invoices?';
const NEW = 'Do resellers get a grace period on disputed invoices in Europe?';
const ANSWER = 'Thirty days from the dispute.';

const llm = useLlmKit();
let fake: FakeLlm;
let kit: SchedulerKit;
beforeEach(() => void (fake = llm.fake));

/** Starts with one curated library entry; returns its id. */
async function start(extra: Record<string, unknown> = {}): Promise<string> {
  kit = await llm.start(extra);
  const added = await kit.t.call('POST', '/api/v1/answers', { topic: 'billing', question: EARLIER, answer: ANSWER, expert_id: 'dana' });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  return added.body.id;
}

/** Submits without waiting for the LLM worker. */
async function submitNow(question = NEW): Promise<string> {
  const res = await kit.t.callNow('POST', '/api/v1/requests', submitBody({ consumer_id: 'crm-bot', question }));
  expect(res.body).toMatchObject({ status: 'queued' });
  return res.body.request_id;
}

describe('the model judges a library answer the lexical rule is unsure of', () => {
  it('the pair is in the band the model judges: above library.llm_min_score, below library.min_score', () => {
    expect(questionScore(EARLIER, NEW)).toBeGreaterThanOrEqual(0.3);
    expect(questionScore(EARLIER, NEW)).toBeLessThan(0.6);
  });

  it('nobody is asked while it judges (waiting: llm); a confident yes offers the entry with the model’s confidence', async () => {
    const answerId = await start();
    const verdict = later();
    fake.on('answer_match', verdict.behaviour);
    const id = await submitNow();
    const [call] = await fake.waitForCalls('answer_match');

    expect((await kit.t.callNow('GET', `/api/v1/requests/${id}`)).body).toMatchObject({ status: 'queued', asks: [], waiting: { why: 'llm' } });
    expect(call!.data).toEqual({ topic: 'billing', kind: 'answer', new_question: NEW, earlier_question: EARLIER, earlier_answer: ANSWER });
    expect(call!.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'answer_match', strict: true } });
    expect(JSON.stringify(call!.body)).not.toContain('the invoice total does not match the ledger');

    verdict.release({ json: { answers_question: true, confidence: 0.92 } });
    await kit.t.service.idle();
    const request = await kit.request(id);
    expect(request).toMatchObject({ status: 'proposed', asks: [], waiting: { why: 'review' } });
    expect(request.proposal).toMatchObject({ answer: ANSWER, confidence: 0.92, provenance: { transport: 'library', reused_from: answerId } });
    expect((await kit.auditOf(id, 'reused'))[0]!.data).toEqual({ answer_id: answerId, score: questionScore(EARLIER, NEW), by: 'llm' });
    expect((await kit.auditOf(id, 'llm_call'))[0]!.data).toMatchObject({ stage: 'match', outcome: 'ok', used: true });
    expect(kit.t.messages()).toHaveLength(0);
    expect(fake.callsOf('drafted_question')).toHaveLength(0);
  });

  it('a question that swaps a word of the entry (a synonym, maybe) is judged by the model, however high its score', async () => {
    const answerId = await start();
    const swapped = 'How long is the grace window for disputed invoices?';
    expect(questionScore(EARLIER, swapped)).toBeGreaterThanOrEqual(0.6);
    fake.on('answer_match', { json: { answers_question: true, confidence: 0.9 } });
    const id = await submitNow(swapped);
    await kit.t.service.idle();
    expect(fake.callsOf('answer_match')).toHaveLength(1);
    expect((await kit.auditOf(id, 'reused'))[0]!.data).toMatchObject({ answer_id: answerId, by: 'llm' });
    expect(kit.t.messages()).toHaveLength(0);
  });

  it.each([
    ['says no', { answers_question: false, confidence: 0.95 }],
    ['says yes without enough confidence', { answers_question: true, confidence: 0.7 }],
  ])('an expert is asked, with the drafted question, when the model %s', async (_what, verdict) => {
    await start();
    fake.on('answer_match', { json: verdict });
    const id = await submitNow();
    await kit.t.service.idle();

    expect(await kit.request(id)).toMatchObject({ status: 'asked', asked_question: `From memory: ${NEW}`, proposal_id: null });
    expect(kit.t.messages()).toHaveLength(1);
    expect(kit.t.messages()[0]).toContain(`From memory: ${NEW}`);
    expect(fake.callsOf('answer_match')).toHaveLength(1);
    expect((await kit.auditOf(id, 'llm_call')).map((c) => c.data.stage)).toEqual(['match', 'draft']);
    expect(await kit.auditOf(id, 'reused')).toEqual([]);
    expect(await kit.auditOf(id, 'llm_fallback')).toEqual([]);
  });

  it('a model that is down falls back to the lexical rule, audited; the expert is asked', async () => {
    await start();
    fake.on('answer_match', { status: 500 });
    const id = await submitNow();
    await kit.t.service.idle();

    const [fallback] = await kit.auditOf(id, 'llm_fallback');
    expect(fallback!.data).toMatchObject({ stage: 'match', model: 'fake-model-1' });
    expect(String(fallback!.data.error)).toContain('HTTP 500');
    expect(await kit.request(id)).toMatchObject({ status: 'asked' });
    expect(kit.t.messages()).toHaveLength(1);
  });

  it('a judgement not back within llm.timeout falls back at the deadline: the lexical rule then reuses an entry added meanwhile', async () => {
    await start({ timeout: '30s' });
    fake.on('answer_match', { hang: true });
    const id = await submitNow();
    await fake.waitForCalls('answer_match');
    const exact = await kit.t.callNow('POST', '/api/v1/answers', { topic: 'billing', question: NEW, answer: 'Forty-five days.', expert_id: 'lee' });

    kit.t.clock.advance(29_000);
    await kit.t.service.tick();
    expect((await kit.t.callNow('GET', `/api/v1/requests/${id}`)).body).toMatchObject({ status: 'queued', waiting: { why: 'llm' } });
    kit.t.clock.advance(1_000);
    await kit.t.service.tick();

    const trail = (await kit.t.callNow('GET', `/api/v1/audit?request_id=${id}`)).body as Array<{ type: string; data: Record<string, unknown> }>;
    expect(trail.find((e) => e.type === 'llm_fallback')!.data).toEqual({ stage: 'match', model: 'fake-model-1', error: 'no judgement within llm.timeout (PT30S)' });
    expect(trail.find((e) => e.type === 'reused')!.data).toEqual({ answer_id: exact.body.id, score: 1, by: 'lexical' });
    expect((await kit.t.callNow('GET', `/api/v1/requests/${id}`)).body).toMatchObject({ status: 'proposed', proposal: { answer: 'Forty-five days.' } });
    expect(kit.t.messages()).toHaveLength(0);
  });

  it('a judgement in flight when the service stops is made again after the restart', async () => {
    await start();
    fake.on('answer_match', { hang: true });
    const id = await submitNow();
    await fake.waitForCalls('answer_match');

    fake.on('answer_match', { json: { answers_question: true, confidence: 0.9 } });
    await kit.restart();
    await kit.t.service.tick();
    await kit.t.service.idle();
    expect(fake.callsOf('answer_match')).toHaveLength(2);
    expect(await kit.request(id)).toMatchObject({ status: 'proposed', waiting: { why: 'review' } });
    expect(kit.t.messages()).toHaveLength(0);
  });

  it('an entry the lexical rule reuses on its own is offered at once, without asking the model', async () => {
    await start();
    const id = await submitNow('What is the grace period for disputed invoices?');
    await kit.t.service.idle();
    expect(await kit.request(id)).toMatchObject({ status: 'proposed' });
    expect((await kit.auditOf(id, 'reused'))[0]!.data).toMatchObject({ by: 'lexical' });
    expect(fake.callsOf('answer_match')).toHaveLength(0);
  });
});
