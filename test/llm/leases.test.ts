import { describe, expect, it, vi } from 'vitest';
import type { LlmCall, LlmClient, LlmReply } from '../../src/llm/create-llm-client.js';
import { submitBody } from '../support/build-test-app.js';
import { RecordingTransport, useSharedDatabase } from '../support/shared-database.js';

/**
 * LLM jobs on a database several processes share: a job one process is running (its call may outlast
 * the lease: it is renewed) is never run by another; when that process dies, another takes the job
 * over once the lease runs out and finishes it once; a process that stops gives its jobs back at once.
 */

const LEASE_MS = 15_000;
const DRAFT = 'When does a disputed invoice have to be paid?';
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** An LLM that answers every draft at once, or (`hang`) never, until the call is aborted. */
class ScriptedLlm implements LlmClient {
  readonly settings = { model: 'fake-model', baseUrl: 'http://fake.invalid/v1', timeoutMs: 60_000, concurrency: 4 };
  readonly calls: LlmCall[] = [];
  private called: Array<() => void> = [];
  constructor(private readonly hang: boolean) {}
  complete(call: LlmCall): Promise<LlmReply> {
    this.calls.push(call);
    this.called.splice(0).forEach((resolve) => resolve());
    if (!this.hang) return Promise.resolve({ ok: true, content: JSON.stringify({ question: DRAFT }), latency_ms: 5, usage: null });
    return new Promise((resolve) => call.signal?.addEventListener('abort', () => resolve({ ok: false, error: 'aborted', aborted: true, latency_ms: 5 })));
  }
  calling(): Promise<void> {
    return this.calls.length > 0 ? Promise.resolve() : new Promise((resolve) => this.called.push(resolve));
  }
}

const shared = useSharedDatabase();

async function look(worker: { kick(): void; idle(): Promise<void> }): Promise<void> {
  worker.kick();
  await worker.idle();
}

describe('LLM jobs shared by several processes', () => {
  it('a draft one process is running is not run by another, even past the lease; after it dies the other drafts it once', async () => {
    const slow = new ScriptedLlm(true);
    const a = shared.db.open(new RecordingTransport(false), slow);
    const fast = new ScriptedLlm(false);
    const b = shared.db.open(new RecordingTransport(false), fast);

    const { request_id: id } = await a.service.submitRequest(submitBody() as never);
    await slow.calling();
    await look(b.service.llmWorker!);
    expect(fast.calls).toHaveLength(0);

    // The call outlasts the lease; process a renews it while it runs.
    for (let i = 0; i < 6; i++) {
      shared.db.clock.advance(LEASE_MS / 3);
      vi.advanceTimersByTime(LEASE_MS / 3);
      await turn();
      await look(b.service.llmWorker!);
    }
    expect(fast.calls).toHaveLength(0);

    await a.kill();
    shared.db.clock.advance(LEASE_MS);
    await look(b.service.llmWorker!);
    expect(fast.calls.map((c) => c.name)).toEqual(['drafted_question']);
    expect((await b.store.requests.get(id))).toMatchObject({ drafting: false, asked_question: DRAFT });

    shared.db.clock.advance(LEASE_MS);
    await look(b.service.llmWorker!);
    expect(fast.calls).toHaveLength(1);
    expect((await b.store.requests.audit(id)).filter((e) => e.type === 'llm_call')).toHaveLength(1);
  });

  it('a process that stops gives its job back: another runs it at once', async () => {
    const slow = new ScriptedLlm(true);
    const a = shared.db.open(new RecordingTransport(false), slow);
    const fast = new ScriptedLlm(false);
    const b = shared.db.open(new RecordingTransport(false), fast);
    const { request_id: id } = await a.service.submitRequest(submitBody() as never);
    await slow.calling();

    a.service.llmWorker!.stop();
    await a.service.llmWorker!.idle();
    await look(b.service.llmWorker!);
    expect(fast.calls).toHaveLength(1);
    expect((await b.store.requests.get(id))).toMatchObject({ drafting: false, asked_question: DRAFT });
  });
});
