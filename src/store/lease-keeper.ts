import { randomUUID } from 'node:crypto';

/**
 * How long a claim on outside work (a transport message, a webhook delivery, an LLM job) lasts
 * before any process may take it again. A process holding work renews its leases every third of
 * this while the work runs, however long a call takes (an LLM call may run for `llm.timeout`, Slack
 * may hold a message through rate limiting), so a live process keeps its work while a killed one's
 * is taken over within about this long plus a tick: well inside 30 s.
 */
export const WORK_LEASE_MS = 15_000;

/** A fresh claimant id: the `claimed_by` of the leases one dispatcher or worker takes. */
export function newClaimantId(): string {
  return `inst_${randomUUID()}`;
}

/**
 * Renews the leases of the work a process has in flight, every third of the lease, and only while
 * there is some (no timer runs when idle; the timer never keeps the process alive). `renew` gets the
 * ids still held; its failure is reported and tried again on the next round, with two rounds to spare
 * before the lease runs out.
 */
export class LeaseKeeper {
  private readonly held = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly leaseMs: number,
    private readonly renew: (ids: string[]) => Promise<unknown> | unknown,
    private readonly onError: (error: unknown) => void,
  ) {}

  hold(ids: Iterable<string>): void {
    for (const id of ids) this.held.add(id);
    if (this.held.size > 0 && this.timer === null) {
      this.timer = setInterval(() => this.renewNow(), Math.max(1, Math.floor(this.leaseMs / 3)));
      this.timer.unref();
    }
  }

  release(ids: Iterable<string>): void {
    for (const id of ids) this.held.delete(id);
    if (this.held.size === 0 && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** Renews now (the timer calls it; tests call it to stand for time passing in a live process). */
  async renewNow(): Promise<void> {
    if (this.held.size === 0) return;
    try {
      await this.renew([...this.held]);
    } catch (error) {
      this.onError(error);
    }
  }
}
