import type { ExpertLiveState } from '../domain/records.js';

/**
 * Experts' live states as one transaction read them. Routing reads the states of the experts it may
 * ask and then writes asks; inside a transaction each expert's state is read once (with its lock, on
 * an engine that takes one) and kept until the transaction writes to that expert's asks or mute
 * (`forget`; a new ask is counted in, `added`), so reading it again costs nothing and still sees the transaction's own changes.
 */
export class ExpertStateMemo {
  private readonly states = new Map<string, ExpertLiveState>();
  private day: number | null = null;

  /** The states of `ids` (no duplicates) for the day starting at `dayStart`; `read` is asked for those not kept. */
  async get(ids: readonly string[], dayStart: number, read: (missing: string[]) => Promise<Map<string, ExpertLiveState>>): Promise<Map<string, ExpertLiveState>> {
    if (this.day !== dayStart) this.states.clear();
    this.day = dayStart;
    const missing = ids.filter((id) => !this.states.has(id));
    if (missing.length > 0) for (const [id, state] of await read(missing)) this.states.set(id, state);
    return new Map(ids.map((id) => [id, { ...this.states.get(id)! }]));
  }

  /**
   * Counts a new ask in its expert's kept state (as a read would now), so routing the next request
   * to the same expert in this transaction need not read again.
   */
  added(ask: { expert_id: string; state: string; sent_at: number | null }): void {
    const state = this.states.get(ask.expert_id);
    if (!state) return;
    if (ask.state === 'open') state.openAsks++;
    else if (ask.state === 'queued') state.queuedAsks++;
    if (ask.sent_at !== null && this.day !== null && ask.sent_at >= this.day) state.asksToday++;
  }

  /** Drops one expert's state (their asks or mute changed), or every state (`expertId` not known). */
  forget(expertId?: string): void {
    if (expertId === undefined) this.states.clear();
    else this.states.delete(expertId);
  }
}
