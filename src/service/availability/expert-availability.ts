import { availability, type Availability, type AvailabilityRules } from '../../core/availability.js';
import type { RegisteredExpert } from '../../core/expert-registry.js';
import type { ExpertFacts } from '../../core/route-request.js';
import type { Presence } from '../../transport/transport.js';
import type { Reads } from '../../store/store.js';
import type { Engine, Attendance } from '../engine/index.js';
import { isAway } from './away-state.js';

/**
 * The rules that decide when one expert may be asked: their working hours in their own zone (the
 * organisation's when they set none) and the quiet hours in force (the request's policy, or the
 * defaults for a view of the registry) in the organisation's zone.
 */
export function rulesOf(engine: Pick<Engine, 'config' | 'presence'>, expert: RegisteredExpert, quietHours: readonly [string, string] | null): AvailabilityRules {
  // The chat status (`chat.use_slack_status`): do-not-disturb while fresh; an away status until it expires.
  const p: Presence | undefined = engine.presence?.known(expert.id);
  const awayUntil = engine.presence?.awayUntil(expert.id) ?? null;
  return {
    timeZone: expert.timezone ?? engine.config.org.timezone,
    workingHours: expert.workingHours,
    orgTimeZone: engine.config.org.timezone,
    quietHours,
    away: awayUntil !== null ? { until: awayUntil } : null,
    dnd: p?.dndUntil ? { until: p.dndUntil } : null,
  };
}

/**
 * Until when the expert's chat status says they are away, when it does at `now` (else null). Such an
 * expert is passed over like one on an away spell: routing skips them and their asks are passed on.
 */
export function awayByStatus(presence: Engine['presence'], expertId: string, now: number): number | null {
  const until = presence?.awayUntil(expertId) ?? null;
  return until !== null && until > now ? until : null;
}

/** Whether an expert is away at `now`: on an away spell, or by their chat status. */
export async function isAwayNow(presence: Engine['presence'], reads: Reads, id: string, now: number): Promise<boolean> {
  return awayByStatus(presence, id, now) !== null || (await isAway(reads, id, now));
}

/**
 * Per expert (an immutable registry entry) and rules: from when until when they are known to be
 * available. Every rule changes on a whole minute (working and quiet hours are `HH:MM` in zones whose
 * offsets are whole minutes), and away and do-not-disturb only end: an expert available at `from` is
 * available until the minute ends. Routing asks this for every candidate of every request.
 */
const availableSpells = new WeakMap<RegisteredExpert, Map<string, { from: number; to: number }>>();
const MINUTE_MS = 60_000;
const AVAILABLE: Availability = Object.freeze({ available: true });

/** Whether an expert may be asked at `now`, else why not and from when (see `availability`). */
export function expertAvailability(engine: Pick<Engine, 'config' | 'presence'>, expert: RegisteredExpert, quietHours: readonly [string, string] | null, now: number): Availability {
  const rules = rulesOf(engine, expert, quietHours);
  // Nothing that could block: the common case of an organisation without hours.
  if (!rules.workingHours && !rules.quietHours && !rules.away && !rules.dnd) return AVAILABLE;
  const key = `${rules.timeZone} ${rules.orgTimeZone} ${quietHours?.join('-') ?? ''} ${rules.away?.until ?? ''} ${rules.dnd?.until ?? ''}`;
  let spells = availableSpells.get(expert);
  const known = spells?.get(key);
  if (known && known.from <= now && now < known.to) return AVAILABLE;
  const found = availability(now, rules);
  if (found.available) {
    if (!spells) availableSpells.set(expert, (spells = new Map()));
    spells.set(key, { from: now, to: now - (now % MINUTE_MS) + MINUTE_MS });
  }
  return found;
}

/**
 * The first instant an expert may be asked: `now` when they may be asked now, null when no instant
 * is known (working hours that lie wholly inside quiet hours). Routing ranks candidates by it.
 */
export function availableFrom(engine: Pick<Engine, 'config' | 'presence'>, expert: RegisteredExpert, quietHours: readonly [string, string] | null, now: number): number | null {
  const a = expertAvailability(engine, expert, quietHours, now);
  return a.available ? now : a.until;
}

/**
 * What routing needs to know of each expert at `now`: their own caps and when they can next be
 * asked (`now` when they can be asked now). Computed once per expert per routing decision.
 */
export function routingFacts(engine: Attendance, quietHours: readonly [string, string] | null, now: number): (id: string) => ExpertFacts | undefined {
  const known = new Map<string, ExpertFacts | undefined>();
  return (id) => {
    if (!known.has(id)) {
      const expert = engine.experts.get(id);
      known.set(id, expert && { max_open_asks: expert.max_open_asks, max_asks_per_day: expert.max_asks_per_day, availableFrom: availableFrom(engine, expert, quietHours, now) });
    }
    return known.get(id);
  };
}
