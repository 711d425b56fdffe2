import type { ExpertLiveState } from '../domain/records.js';

interface Kept {
  /**
   * Never changed once kept (`added` keeps a changed copy instead), so the maps `get` returns and this
   * instance's hints can hold the object itself.
   */
  state: Readonly<ExpertLiveState>;
  /** The start of the day its `asksToday` counts from (experts' days differ by zone). */
  day: number;
  /** Read under the expert's lock in this transaction (exact until commit), not a hint a moment old. */
  settled: boolean;
}

/**
 * Experts' live states as one transaction read them. Routing reads the states of the experts it may
 * ask and then writes asks; inside a transaction each expert's state is read once (with its lock, on
 * an engine that takes one) and kept until the transaction writes to that expert’s asks, mute or away
 * (`forget`; a new ask is counted in, `added`), so reading it again costs nothing and still sees the transaction's own changes.
 *
 * A kept state is either settled (read under the expert's lock, or on an engine with one writer) or
 * a hint (read a moment ago without the lock: another instance may have changed it since). The
 * experts given asks on a hint are remembered (`placedOnHints`) for the whole transaction: reading
 * them settled later does not check the asks placed before.
 */
export class ExpertStateMemo {
  private readonly states = new Map<string, Kept>();
  /** Experts given asks on a hint, with the day their kept state counted from then. */
  private readonly onHints = new Map<string, number>();

  /**
   * The states of `ids` (no duplicates), each for the day starting at `dayOf(id)`, as kept now (a later
   * `added` does not change them); `read` is asked for those not kept (with `settled`, also for those
   * kept only as hints), and what it returns is kept as `settled` says.
   */
  async get(
    ids: readonly string[],
    dayOf: (id: string) => number,
    read: (missing: string[]) => Promise<Map<string, ExpertLiveState>>,
    settled = true,
  ): Promise<Map<string, ExpertLiveState>> {
    const missing = ids.filter((id) => {
      const kept = this.states.get(id);
      return kept?.day !== dayOf(id) || (settled && !kept.settled);
    });
    if (missing.length > 0) {
      for (const [id, state] of await read(missing)) this.states.set(id, { state, day: dayOf(id), settled });
    }
    const states = new Map<string, ExpertLiveState>();
    for (const id of ids) states.set(id, this.states.get(id)!.state);
    return states;
  }

  /** Keeps a state read under the expert's lock, for the day starting at `day`. */
  keepSettled(id: string, state: ExpertLiveState, day: number): void {
    this.states.set(id, { state, day, settled: true });
  }

  /** Whether this expert's kept state was read under their lock (false when not kept or only a hint). */
  isSettled(expertId: string): boolean {
    return this.states.get(expertId)?.settled === true;
  }

  /** The start of the day an expert given asks on a hint had them counted from. */
  hintDay(expertId: string): number | undefined {
    return this.onHints.get(expertId);
  }

  /** Experts given asks while their kept state was a hint (read settled since or not). */
  placedOnHints(): string[] {
    return [...this.onHints.keys()];
  }

  /**
   * Every settled state kept, with its day: exact at commit (the experts' locks are held until then).
   * The kept objects themselves: for when the transaction is over and the memo no longer changes them.
   */
  settledStates(): Array<{ id: string; state: ExpertLiveState; day: number }> {
    return [...this.states].filter(([, k]) => k.settled).map(([id, k]) => ({ id, state: k.state, day: k.day }));
  }

  /**
   * Counts a new ask in its expert's kept state (as a read would now), so routing the next request
   * to the same expert in this transaction need not read again.
   */
  added(ask: { expert_id: string; state: string; sent_at: number | null }): void {
    const kept = this.states.get(ask.expert_id);
    if (!kept) return;
    const { state, day } = kept;
    if (!kept.settled) this.onHints.set(ask.expert_id, day);
    // Each field written out: a spread of states made in different places takes V8's slow path.
    kept.state = {
      muted: state.muted,
      openAsks: state.openAsks + (ask.state === 'open' ? 1 : 0),
      queuedAsks: state.queuedAsks + (ask.state === 'queued' ? 1 : 0),
      asksToday: state.asksToday + (ask.sent_at !== null && ask.sent_at >= day ? 1 : 0),
      away: state.away,
    };
  }

  /** Drops one expert's state (their asks or mute changed), or every state (`expertId` not known). */
  forget(expertId?: string): void {
    if (expertId === undefined) this.states.clear();
    else this.states.delete(expertId);
  }
}
