import type { ExpertLiveState } from '../domain/records.js';

/**
 * Experts' live states as one transaction read them. Routing reads the states of the experts it may
 * ask and then writes asks; inside a transaction each expert's state is read once (with its lock, on
 * an engine that takes one) and kept until the transaction writes to that expert’s asks, mute or away
 * (`forget`; a new ask is counted in, `added`), so reading it again costs nothing and still sees the transaction's own changes.
 */
export class ExpertStateMemo {
  /** Each kept state with the start of the day its `asksToday` counts from (experts' days differ by zone). */
  private readonly states = new Map<string, { state: ExpertLiveState; day: number }>();

  /** The states of `ids` (no duplicates), each for the day starting at `dayOf(id)`; `read` is asked for those not kept. */
  async get(ids: readonly string[], dayOf: (id: string) => number, read: (missing: string[]) => Promise<Map<string, ExpertLiveState>>): Promise<Map<string, ExpertLiveState>> {
    const missing = ids.filter((id) => this.states.get(id)?.day !== dayOf(id));
    if (missing.length > 0) for (const [id, state] of await read(missing)) this.states.set(id, { state, day: dayOf(id) });
    return new Map(ids.map((id) => [id, { ...this.states.get(id)!.state }]));
  }

  /**
   * Counts a new ask in its expert's kept state (as a read would now), so routing the next request
   * to the same expert in this transaction need not read again.
   */
  added(ask: { expert_id: string; state: string; sent_at: number | null }): void {
    const kept = this.states.get(ask.expert_id);
    if (!kept) return;
    const { state, day } = kept;
    if (ask.state === 'open') state.openAsks++;
    else if (ask.state === 'queued') state.queuedAsks++;
    if (ask.sent_at !== null && ask.sent_at >= day) state.asksToday++;
  }

  /** Drops one expert's state (their asks or mute changed), or every state (`expertId` not known). */
  forget(expertId?: string): void {
    if (expertId === undefined) this.states.clear();
    else this.states.delete(expertId);
  }
}
