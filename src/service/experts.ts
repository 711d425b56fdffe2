import type { ExpertEntry } from '../config/expert-schema.js';
import { writeExpertsSection } from '../config/write-experts.js';
import { iso } from '../clock.js';
import { ExpertRegistry } from '../core/expert-registry.js';
import { isQuietAt, quietHoursEnd, startOfNextLocalDay } from '../core/local-time.js';
import { isCapped } from '../core/route-request.js';
import type { ExpertLiveState } from '../store/records.js';
import { AppError, badRequest, notFound } from '../errors.js';
import { placeWaiting } from './place-waiting.js';
import { audit, liveStates, type Engine } from './engine.js';
import { passOn } from './pass-on.js';

export interface ExpertView {
  id: string;
  name: string;
  topics: string[];
  escalation_to: string | null;
  muted: boolean;
  open_asks: number;
  asks_today: number;
  available_now: boolean;
  unavailable: Unavailable | null;
}

export interface Unavailable {
  why: 'muted' | 'cap' | 'quiet_hours';
  until?: string;
}

/** The registry with exact live state, counted from the asks themselves. */
export function listExperts(engine: Engine): ExpertView[] {
  const now = engine.clock.now();
  const states = liveStates(engine, null, now);
  return engine.experts.experts.map((e) => {
    const s = states.get(e.id) ?? { muted: false, openAsks: 0, queuedAsks: 0, asksToday: 0 };
    const unavailable = unavailableNow(engine, s, now);
    return {
      id: e.id,
      name: e.name,
      topics: e.topics,
      escalation_to: e.escalation_to,
      muted: s.muted,
      open_asks: s.openAsks,
      asks_today: s.asksToday,
      available_now: unavailable === null,
      unavailable,
    };
  });
}

/** Why a new question would not be sent to an expert this minute under the default limits, and until when. */
function unavailableNow(engine: Engine, s: ExpertLiveState, now: number): Unavailable | null {
  const { defaults, org } = engine.config;
  if (s.muted) return { why: 'muted' };
  if (isCapped(s, defaults)) {
    const dailyOnly = s.openAsks < defaults.max_open_asks_per_expert;
    return dailyOnly ? { why: 'cap', until: iso(startOfNextLocalDay(now, org.timezone)) } : { why: 'cap' };
  }
  if (defaults.quiet_hours && isQuietAt(now, org.timezone, defaults.quiet_hours)) {
    return { why: 'quiet_hours', until: iso(quietHoursEnd(now, org.timezone, defaults.quiet_hours)) };
  }
  return null;
}

/**
 * Full replace of the registry. The array is already validated on its own; here
 * it is checked against the rest of the configuration, then the file is rewritten and only then the
 * registry swapped, so the file stays the source of truth. Live state is kept by id.
 */
export function replaceExperts(engine: Engine, entries: ExpertEntry[]): ExpertView[] {
  const ids = new Set(entries.map((e) => e.id));
  const orphans = Object.entries(engine.config.topics).filter(([, t]) => t.fallback !== null && !ids.has(t.fallback));
  if (orphans.length > 0) {
    throw badRequest(
      'The new registry removes an expert that a topic uses as its fallback.',
      orphans.map(([topic, t]) => ({ path: `topics.${topic}.fallback`, message: `expert "${t.fallback}" would no longer exist` })),
    );
  }
  if (engine.config.file) {
    try {
      writeExpertsSection(engine.config.file, entries);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      engine.log.error({ err: error, file: engine.config.file }, 'could not write the experts section');
      throw new AppError(
        'internal',
        `The experts were not changed: the configuration file ${engine.config.file} cannot be written (${code}). ` +
          'Let the server write it (file and folder), or edit the file and restart.',
      );
    }
  }
  engine.experts = new ExpertRegistry(entries);
  engine.log.info({ experts: entries.length }, 'expert registry replaced');
  return listExperts(engine);
}

/**
 * Mutes an expert and passes each of their open asks on along the escalation chain, as the expert's
 * own `mute` reply does. The caller holds the transaction. Returns how many asks were passed on.
 */
export function muteAndPassOn(engine: Engine, expertId: string, actor: string, now: number): number {
  const open = engine.store.openAsksOf(expertId);
  engine.store.setMuted(expertId, true, now);
  for (const ask of open) {
    const request = engine.store.getRequest(ask.request_id)!;
    audit(engine, { request_id: request.id, at: now, type: 'muted', actor, data: { ask_id: ask.id } });
    passOn(engine, request, ask, 'mute', now);
  }
  const involved = open.flatMap((a) => engine.store.listAsks(a.request_id).map((x) => x.expert_id));
  placeWaiting(engine, new Set([expertId, ...involved]), now);
  return open.length;
}

/** Mutes an expert from the API (`POST /experts/{id}/mute`): no more asks until unmuted; open ones pass on. */
export function muteExpert(engine: Engine, expertId: string, mutedBy: string): ExpertView {
  if (!engine.experts.has(expertId)) throw notFound('Expert', expertId);
  const now = engine.clock.now();
  const passed = engine.store.transaction(() => muteAndPassOn(engine, expertId, `reviewer:${mutedBy}`, now));
  engine.log.info({ expert_id: expertId, muted_by: mutedBy, passed_on: passed }, 'expert muted');
  return listExperts(engine).find((e) => e.id === expertId)!;
}

/** Clears a mute; asks and held requests waiting for this expert get their chance in the same transaction. */
export function unmuteExpert(engine: Engine, expertId: string): ExpertView {
  if (!engine.experts.has(expertId)) throw notFound('Expert', expertId);
  const now = engine.clock.now();
  engine.store.transaction(() => {
    engine.store.setMuted(expertId, false, now);
    placeWaiting(engine, new Set([expertId]), now);
  });
  engine.log.info({ expert_id: expertId }, 'expert unmuted');
  return listExperts(engine).find((e) => e.id === expertId)!;
}
