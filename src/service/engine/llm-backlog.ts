import { formatDuration } from '../../config/durations.js';

/** Weight of the newest call in the running mean of call times. */
const LATEST_WEIGHT = 0.2;

/** Why a new request's question is not given to the model: no draft could be ready in time. */
export interface Behind {
  /** LLM jobs waiting ahead of it (pending, not past their deadline), about. */
  ahead: number;
  /** A call's usual time lately, in milliseconds. */
  callMs: number;
}

/**
 * How far behind the model is: the LLM jobs waiting for a call (counted in the database each tick,
 * plus those queued here since) against how many calls the live instances make at once and how long
 * a call takes lately. A job waits for the jobs ahead of it, `concurrency` calls at a time per
 * instance, oldest first; when even its turn would come after `llm.timeout`, its request would wait
 * the whole timeout for nothing and then be asked with the raw question anyway (`behind`).
 *
 * An estimate, on the safe side: jobs finished since the last count are still counted until the
 * next, and it says nothing until a call has been timed.
 */
export class LlmBacklog {
  private callMs: number | null = null;
  /** The jobs waiting for a call at the last count. */
  private lastCount = 0;
  private queuedSince = 0;
  private instances = 1;

  constructor(
    private readonly concurrency: number,
    private readonly timeoutMs: number,
  ) {}

  /** A call to the model returned (answered or failed) after `ms`. */
  timed(ms: number): void {
    this.callMs = this.callMs === null ? ms : this.callMs + LATEST_WEIGHT * (ms - this.callMs);
  }

  /** The jobs waiting for a call, as counted in the database now. */
  count(waiting: number): void {
    this.lastCount = waiting;
    this.queuedSince = 0;
  }

  /** A job was queued here since the last count. */
  queued(): void {
    this.queuedSince++;
  }

  /** How many instances run calls (each with its own `concurrency`). */
  liveInstances(n: number): void {
    this.instances = Math.max(1, n);
  }

  /** Why a job queued now could not be answered within `llm.timeout`, or null when it could (or nothing is known yet). */
  behind(): Behind | null {
    if (this.callMs === null) return null;
    const ahead = this.lastCount + this.queuedSince;
    const turn = Math.floor(ahead / (this.concurrency * this.instances)) + 1;
    return turn * this.callMs > this.timeoutMs ? { ahead, callMs: Math.round(this.callMs) } : null;
  }

  /** The `llm_fallback` error of a request not drafted because the model is behind. */
  describe(b: Behind): string {
    const ahead = b.ahead === 1 ? 'about 1 LLM call waits' : `about ${b.ahead} LLM calls wait`;
    return `not drafted: ${ahead} ahead of it and one takes about ${(b.callMs / 1000).toFixed(1)} s, so no draft could be ready within llm.timeout (${formatDuration(this.timeoutMs)})`;
  }
}
