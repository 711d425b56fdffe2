import type { Policy } from '../../config/config-schema.js';
import { isQuietAt, quietHoursEnd, startOfNextLocalDay } from '../../core/local-time.js';
import { findCandidates, limitsFor, type RouteLimits } from '../../core/route-request.js';
import type { AskRecord, ExpertLiveState, RequestRecord } from '../../domain/records.js';
import { liveStates, zoneOf, type Engine, type Attendance, type Roster } from '../engine/index.js';
import { expertAvailability } from './expert-availability.js';

/**
 * Why an open request has nobody working on it right now: `llm` (its question is being drafted),
 * `quiet_hours` (its asks wait for the window to end), `working_hours` (the expert's working day has
 * not begun), `cap` (every expert who could take it is at a
 * limit), `review` (an expert answered; a reviewer decides). Null while an ask is out and unanswered,
 * and once the request is closed.
 */
export interface Waiting {
  why: 'llm' | 'quiet_hours' | 'working_hours' | 'away' | 'dnd' | 'cap' | 'review';
  /** Whom it waits for, when that is one expert. */
  expert_id?: string;
  /** When the wait ends, when that is known (quiet hours end, a daily limit resets). */
  until?: string;
  /**
   * The IANA zone whose clock `until` is read on, so people are told it as the person concerned
   * lives it: the expert's for their working day, away spell, do-not-disturb and daily limit; the
   * organisation's for quiet hours.
   */
  timezone?: string;
}

export async function waitingOf(engine: Attendance & Pick<Engine, 'store'>, request: RequestRecord, asks: readonly AskRecord[], now: number): Promise<Waiting | null> {
  switch (request.status) {
    case 'proposed':
      return { why: 'review' };
    case 'queued':
    case 'asked':
    case 'escalated':
      break;
    default:
      return null;
  }
  if (asks.some((a) => a.state === 'open')) return null;
  if (request.drafting) return { why: 'llm' };
  const queued = asks.filter((a) => a.state === 'queued');
  const timed = queued.filter((a) => a.send_after !== null).sort((a, b) => a.send_after! - b.send_after!)[0];
  if (timed) {
    const why = timedWhy(engine, request, timed, now);
    return {
      why,
      ...(queued.length === 1 ? { expert_id: timed.expert_id } : {}),
      until: new Date(timed.send_after!).toISOString(),
      timezone: why === 'quiet_hours' ? engine.config.org.timezone : zoneOf(engine, timed.expert_id),
    };
  }
  const waitingFor = queued.length > 0
    ? queued.map((a) => a.expert_id)
    : request.held
      ? findCandidates(request.topic, request.target_experts, engine.experts, engine.config.topics).map((c) => c.expertId)
      : [];
  if (waitingFor.length === 0) return null;
  return capWait(engine, request.routing_policy, waitingFor, now);
}

/**
 * Why an ask that waits for a time waits: what keeps its expert from being asked now (working hours,
 * quiet hours…). Quiet hours when that can no longer be told (the expert left the registry).
 */
function timedWhy(engine: Attendance, request: RequestRecord, ask: AskRecord, now: number): Waiting['why'] {
  const expert = engine.experts.get(ask.expert_id);
  if (!expert) return 'quiet_hours';
  const free = expertAvailability(engine, expert, request.routing_policy.quiet_hours, now);
  if (!free.available) return free.why;
  // Free by every rule known here while its Slack status is being asked: it waits on do-not-disturb.
  return engine.presence && !engine.presence.known(expert.id) ? 'dnd' : 'quiet_hours';
}

/**
 * A wait for experts at their limits. It ends by itself only when every one of them is at the daily
 * limit (at the next local midnight); a limit on open asks frees when one of them answers.
 */
async function capWait(engine: Roster & Pick<Engine, 'store'>, policy: Policy, expertIds: readonly string[], now: number): Promise<Waiting> {
  const states = await liveStates(engine, engine.store, expertIds, now);
  const dailyOnly = expertIds.every((id) => atDailyLimit(states.get(id), limitsFor(policy, engine.experts.get(id))));
  const quiet = policy.quiet_hours !== null && isQuietAt(now, engine.config.org.timezone, policy.quiet_hours);
  const wait: Waiting = { why: 'cap', ...(expertIds.length === 1 ? { expert_id: expertIds[0]! } : {}) };
  if (dailyOnly) {
    // The first of their days to begin (each counts in the expert's own zone).
    const resets = expertIds.map((id) => ({ at: startOfNextLocalDay(now, zoneOf(engine, id)), zone: zoneOf(engine, id) }));
    const first = resets.reduce((a, b) => (b.at < a.at ? b : a));
    // A reset inside quiet hours sends nothing before they end: that end is on the organisation's clock.
    const quietAtReset = quiet || (policy.quiet_hours !== null && isQuietAt(first.at, engine.config.org.timezone, policy.quiet_hours));
    wait.until = new Date(quietAtReset ? quietHoursEnd(first.at, engine.config.org.timezone, policy.quiet_hours!) : first.at).toISOString();
    wait.timezone = quietAtReset ? engine.config.org.timezone : first.zone;
  }
  return wait;
}

const atDailyLimit = (state: ExpertLiveState | undefined, limits: RouteLimits) =>
  state !== undefined && state.asksToday >= limits.max_asks_per_expert_per_day && state.openAsks < limits.max_open_asks_per_expert;

/** When an open request gives up: null once it is closed, and while `proposed` (it then waits for review, never times out). */
export function givesUpAt(request: RequestRecord): string | null {
  return request.status === 'queued' || request.status === 'asked' || request.status === 'escalated' ? new Date(request.give_up_at).toISOString() : null;
}
