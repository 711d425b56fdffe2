import type { ExpertLiveState } from '../../domain/records.js';

/** How long a state this instance read is routing's hint by default: another instance's asks since then are not in it. */
export const HINT_MS = 1_000;

/**
 * Experts' live states as this instance last read or committed them, for routing to weigh candidates
 * without reading (and locking) each of them on every submit. A hint only orders the candidates: the
 * experts a submit then asks are read again under their lock before it commits. Kept at most
 * `keepMs`, and only for the day its `asksToday` counts from. One entry per expert of the registry.
 */
export class LoadHints {
  private readonly kept = new Map<string, { state: Readonly<ExpertLiveState>; day: number; at: number }>();

  constructor(
    private readonly keepMs = HINT_MS,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** The hints kept for `ids` (the objects themselves: nobody changes a kept state), and the ids with none. */
  take(ids: readonly string[], dayOf: (id: string) => number): { found: Map<string, ExpertLiveState>; missing: string[] } {
    const found = new Map<string, ExpertLiveState>();
    const missing: string[] = [];
    const oldest = this.clock() - this.keepMs;
    for (const id of ids) {
      const hint = this.kept.get(id);
      if (hint && hint.day === dayOf(id) && hint.at >= oldest) found.set(id, hint.state);
      else missing.push(id);
    }
    return { found, missing };
  }

  /** Keeps `state` (the object itself: nobody changes it once kept). */
  put(id: string, state: Readonly<ExpertLiveState>, day: number): void {
    this.kept.set(id, { state, day, at: this.clock() });
  }

  /** Forgets one expert's hint (their mute or away changed), or every hint (some expert's asks changed). */
  drop(id?: string): void {
    if (id === undefined) this.kept.clear();
    else this.kept.delete(id);
  }
}
