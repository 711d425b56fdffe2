import { countOne, type Engine, type Intake, MAX_LLM_ATTEMPTS } from '../engine/index.js';
import { kindSchemaOf } from '../consumers/index.js';
import { CoalescedRun } from '../../delivery/coalesced-run.js';
import { LeaseKeeper, newClaimantId, WORK_LEASE_MS } from '../../store/lease-keeper.js';
import type { LlmJobRecord, RequestRecord } from '../../domain/records.js';
import type { LlmClient } from '../../llm/create-llm-client.js';
import { checkDraft, draftCall } from '../../llm/draft-question.js';
import { finishDraft, finishStructuring, type DraftOutcome, type StructureOutcome } from './finish-llm-job.js';
import { finishMatch, type MatchOutcome } from './finish-match.js';
import { checkStructured, DEFAULT_KIND_SCHEMA, structureCall } from '../../llm/structure-answer.js';
import { judgeCall } from './judge-match.js';

type Outcome = DraftOutcome | StructureOutcome | MatchOutcome;

export interface LlmWorkerOptions {
  /** Names this process on its leases (`claimed_by`); a fresh id by default. */
  instanceId?: string;
  leaseMs?: number;
}

/**
 * Runs the durable LLM jobs (drafting, structuring, judging library matches) after the transactions that wrote them commit,
 * never inside one and never on the request path. At most `llm.concurrency` calls are in flight, each
 * bounded by the client's timeout, so a slow or dead provider holds a few calls, not the service. Jobs
 * are claimed with a lease in the database, renewed while the call runs (it may outlast a lease), so
 * processes sharing a database never run one job at once; the job is marked done in the transaction
 * that uses its result. A stopped worker gives its leases back; a killed one's run out, and any
 * process runs those jobs again. Kicks in the same event-loop turn merge into one look.
 */
export class LlmWorker {
  private readonly inFlight = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly looks: CoalescedRun;
  private stopping = false;
  private readonly owner: string;
  private readonly leaseMs: number;
  private readonly leases: LeaseKeeper;

  constructor(
    private readonly engine: Intake & Pick<Engine, 'store'>,
    private readonly client: LlmClient,
    /** Wakes the message and delivery dispatchers after a job's commit. */
    private readonly afterCommit: () => void,
    options: LlmWorkerOptions = {},
  ) {
    this.owner = options.instanceId ?? newClaimantId();
    this.leaseMs = options.leaseMs ?? WORK_LEASE_MS;
    const { store, clock, log } = engine;
    this.looks = new CoalescedRun(
      () => this.fill(),
      (error) => log.error({ err: error }, 'could not look for LLM jobs; will retry on the next tick'),
    );
    this.leases = new LeaseKeeper(
      this.leaseMs,
      (ids) => store.transaction((tx) => tx.llmJobs.renewLeases(ids, this.owner, clock.now() + this.leaseMs)),
      (error) => log.warn({ err: error }, 'could not renew the leases of LLM jobs in flight; will retry'),
    );
  }

  /** Looks for due jobs soon, if there is room for another call. */
  kick(): void {
    if (!this.stopping) this.looks.kick();
  }

  /** Aborts the calls in flight and takes no new work: their jobs stay pending, their leases given back. */
  stop(): void {
    this.stopping = true;
    for (const { abort } of this.inFlight.values()) abort.abort();
  }

  /** Resolves when no job is running and none is about to start (tests and shutdown wait on it). */
  async idle(): Promise<void> {
    while (this.looks.busy || this.inFlight.size > 0) {
      await Promise.all([this.looks.idle(), ...[...this.inFlight.values()].map((f) => f.done)]);
    }
  }

  private async fill(): Promise<void> {
    if (this.stopping) return;
    const free = this.client.settings.concurrency - this.inFlight.size;
    if (free <= 0) return;
    let jobs: LlmJobRecord[];
    try {
      const now = this.engine.clock.now();
      const claim = { now, owner: this.owner, leaseUntil: now + this.leaseMs, exclude: [...this.inFlight.keys()], limit: free };
      jobs = await this.engine.store.transaction((tx) => tx.llmJobs.claim(claim));
    } catch (error) {
      this.engine.log.error({ err: error }, 'could not read LLM jobs; will retry on the next tick');
      return;
    }
    this.leases.hold(jobs.map((job) => job.id));
    for (const job of jobs) {
      const abort = new AbortController();
      const done = this.run(job, abort.signal)
        .catch((error) => this.engine.log.error({ err: error, request_id: job.request_id, stage: job.stage }, 'LLM job failed'))
        .finally(() => {
          this.leases.release([job.id]);
          this.inFlight.delete(job.id);
          this.kick();
        });
      this.inFlight.set(job.id, { abort, done });
    }
  }

  private async run(job: LlmJobRecord, signal: AbortSignal): Promise<void> {
    const request = await this.engine.store.requests.get(job.request_id);
    const started = this.engine.clock.now();
    const outcome = await this.work(job, request, signal);
    // Timed on the service's clock, as the deadlines it is compared with are.
    if (outcome?.reply) this.engine.llmBacklog?.timed(this.engine.clock.now() - started);
    if (outcome === null) {
      // Stopped: the job stays pending, and the next process to look (this one restarted, or another) runs it at once.
      const { store, log } = this.engine;
      // If even that fails, the lease simply runs out first.
      await store.transaction((tx) => tx.llmJobs.release(job.id, this.owner)).catch((err) => log.warn({ err, request_id: job.request_id }, 'could not give back an LLM job lease'));
      return;
    }
    await this.finish(job, outcome);
    if (!outcome.result.ok && outcome.reply) {
      countOne(this.engine.counters.llmFailures, `${job.stage} ${outcome.reply.ok ? 'unusable_output' : 'call_failed'}`);
      this.engine.log.warn({ request_id: job.request_id, stage: job.stage, err: outcome.result.error }, 'LLM call unusable; fell back');
    }
    this.afterCommit();
  }

  /** Makes the call a job needs (none when the request no longer waits for it) and checks the result. */
  private async work(job: LlmJobRecord, request: RequestRecord | undefined, signal: AbortSignal): Promise<Outcome | null> {
    const skip = (error: string): Outcome => ({ reply: null, result: { ok: false, error } });
    if (!request) return skip('the request is gone');
    if (job.attempts > MAX_LLM_ATTEMPTS) return skip(`gave up after ${MAX_LLM_ATTEMPTS} attempts that did not finish`);

    if (job.stage === 'draft') {
      if (!request.drafting) return skip('the request no longer waits for a draft');
      const askedBecause = String(request.context.asked_because ?? '');
      const reply = await this.client.complete({
        ...draftCall({ topic: request.topic, kind: request.kind, question: request.question, askedBecause }),
        signal,
      });
      if (!reply.ok && reply.aborted) return null;
      return { reply, result: reply.ok ? checkDraft(reply.content) : { ok: false, error: reply.error } };
    }

    if (job.stage === 'match') {
      if (request.status !== 'queued' || !request.drafting) return skip('the request no longer waits for a judgement');
      const judged = await judgeCall(this.engine, request);
      if (judged === null) return skip('no library entry is close enough any more');
      const reply = await this.client.complete({ ...judged.call, signal });
      if (!reply.ok && reply.aborted) return null;
      return { reply, result: reply.ok ? judged.check(reply.content) : { ok: false, error: reply.error } };
    }

    if (request.status !== 'proposed' || request.proposal_id !== job.proposal?.id) return skip('the request no longer waits for this proposal');
    const kindSchema = kindSchemaOf(await this.engine.store.consumers.list(), request.kind) ?? DEFAULT_KIND_SCHEMA;
    const input = { topic: request.topic, kind: request.kind, question: request.question, askedQuestion: request.asked_question, answer: job.proposal.answer };
    const reply = await this.client.complete({ ...structureCall(input, kindSchema), signal });
    if (!reply.ok && reply.aborted) return null;
    return { reply, result: reply.ok ? checkStructured(reply.content, kindSchema) : { ok: false, error: reply.error } };
  }

  /**
   * Commits the job's end. If that throws (a bug, a full disk), the job ends as a fallback instead;
   * if even that fails, the job is closed and logged, so it is never retried in a loop.
   */
  private async finish(job: LlmJobRecord, outcome: Outcome): Promise<void> {
    const { store, clock, log } = this.engine;
    const commit = (o: Outcome) =>
      store.transaction(async (tx) => {
        const now = clock.now();
        if (job.stage === 'draft') await finishDraft(this.engine, tx, job, o as DraftOutcome, now);
        else if (job.stage === 'match') await finishMatch(this.engine, tx, job, o as MatchOutcome, now);
        else await finishStructuring(this.engine, tx, job, o as StructureOutcome, now);
      });
    try {
      await commit(outcome);
      return;
    } catch (error) {
      log.error({ err: error, request_id: job.request_id, stage: job.stage }, 'could not use the LLM result; falling back');
    }
    try {
      await commit({ reply: null, result: { ok: false, error: 'internal error while using the LLM result' } });
    } catch (error) {
      log.error({ err: error, request_id: job.request_id, stage: job.stage }, 'could not fall back either; closing the LLM job');
      await store.transaction((tx) => tx.llmJobs.finish(job.id, clock.now()));
    }
  }
}
