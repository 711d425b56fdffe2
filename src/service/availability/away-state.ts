import type { AwayState } from '../../domain/records.js';
import type { Reads } from '../../store/store.js';

/**
 * The spell if it is in force at `now`, else null: a spell whose end has passed no longer counts,
 * whether or not the scheduler has cleared it yet.
 */
export function inForce(away: AwayState | null | undefined, now: number): AwayState | null {
  return away && away.until > now ? away : null;
}

/**
 * Away spells in force at `now` of these experts (null: every expert). A spell whose end has passed
 * no longer counts, whether or not the scheduler has cleared it yet.
 */
export async function awaysAt(reads: Reads, ids: readonly string[] | null, now: number): Promise<Map<string, AwayState>> {
  if (ids !== null && ids.length === 0) return new Map();
  const all = await reads.asks.aways(ids);
  return new Map([...all].filter(([, away]) => inForce(away, now)));
}

/** Whether an expert is away at `now`. */
export async function isAway(reads: Reads, id: string, now: number): Promise<boolean> {
  return (await awaysAt(reads, [id], now)).has(id);
}
