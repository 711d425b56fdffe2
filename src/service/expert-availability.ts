import { availability, type Availability, type AvailabilityRules } from '../core/availability.js';
import type { RegisteredExpert } from '../core/expert-registry.js';
import type { ExpertFacts } from '../core/route-request.js';
import type { Engine } from './engine.js';

/**
 * The rules that decide when one expert may be asked: their working hours in their own zone (the
 * organisation's when they set none) and the quiet hours in force (the request's policy, or the
 * defaults for a view of the registry) in the organisation's zone.
 */
export function rulesOf(engine: Engine, expert: RegisteredExpert, quietHours: readonly [string, string] | null): AvailabilityRules {
  return {
    timeZone: expert.timezone ?? engine.config.org.timezone,
    workingHours: expert.workingHours,
    orgTimeZone: engine.config.org.timezone,
    quietHours,
  };
}

/** Whether an expert may be asked at `now`, else why not and from when (see `availability`). */
export function expertAvailability(engine: Engine, expert: RegisteredExpert, quietHours: readonly [string, string] | null, now: number): Availability {
  return availability(now, rulesOf(engine, expert, quietHours));
}

/**
 * The first instant an expert may be asked: `now` when they may be asked now, null when no instant
 * is known (working hours that lie wholly inside quiet hours). Routing ranks candidates by it.
 */
export function availableFrom(engine: Engine, expert: RegisteredExpert, quietHours: readonly [string, string] | null, now: number): number | null {
  const a = expertAvailability(engine, expert, quietHours, now);
  return a.available ? now : a.until;
}

/**
 * What routing needs to know of each expert at `now`: their own caps and when they can next be
 * asked (`now` when they can be asked now). Computed once per expert per routing decision.
 */
export function routingFacts(engine: Engine, quietHours: readonly [string, string] | null, now: number): (id: string) => ExpertFacts | undefined {
  const known = new Map<string, ExpertFacts | undefined>();
  return (id) => {
    if (!known.has(id)) {
      const expert = engine.experts.get(id);
      known.set(id, expert && { max_open_asks: expert.max_open_asks, max_asks_per_day: expert.max_asks_per_day, availableFrom: availableFrom(engine, expert, quietHours, now) });
    }
    return known.get(id);
  };
}
