import type { ExpertEntry } from '../../config/expert-schema.js';
import { systemReason } from '../../config/load-config.js';
import { writeExpertsSection } from '../../config/write-experts.js';
import { iso } from '../../clock.js';
import { checkChannels } from '../../core/check-channels.js';
import type { ChannelName, ExpertChannel } from '../../domain/channels.js';
import { ExpertRegistry, type RegisteredExpert } from '../../core/expert-registry.js';
import { startOfNextLocalDay } from '../../core/local-time.js';
import { isCapped, limitsFor } from '../../core/route-request.js';
import type { AwayState, ExpertLiveState } from '../../domain/records.js';
import { AppError, badRequest, notFound } from '../../errors.js';
import { placeWaiting, passOn } from '../routing/index.js';
import type { Tx } from '../../store/store.js';
import { audit, countPass, liveStates, type Engine, type Routing, type Attendance } from '../engine/index.js';
import { expertAvailability, inForce } from '../availability/index.js';
import { awayView, type AwayView } from './expert-away.js';

export interface ExpertView {
  id: string;
  name: string;
  topics: string[];
  escalation_to: string | null;
  slack?: string;
  email?: string;
  teams?: string;
  channels?: ExpertChannel[];
  /** Where a question goes, in order (the first running channel the expert has an address on first). */
  reached_on: ChannelName[];
  timezone?: string;
  working_hours?: string;
  max_open_asks?: number;
  max_asks_per_day?: number;
  muted: boolean;
  open_asks: number;
  asks_today: number;
  available_now: boolean;
  /** When a new question could next be sent, when known; null while available now. */
  next_available_at: string | null;
  unavailable: Unavailable | null;
  /** The away spell in force, if any. */
  away: AwayView | null;
}

export interface Unavailable {
  why: 'muted' | 'away' | 'dnd' | 'cap' | 'quiet_hours' | 'working_hours';
  until?: string;
}

/**
 * The registry with exact live state, counted from the asks themselves: one read, away spells included
 * (a spell past its end that the scheduler has not cleared yet no longer counts).
 */
export async function listExperts(engine: Attendance & Pick<Engine, 'store' | 'clock'>): Promise<ExpertView[]> {
  const now = engine.clock.now();
  const states = await liveStates(engine, engine.store, null, now);
  return engine.experts.experts.map((e) => {
    const s = states.get(e.id) ?? { muted: false, openAsks: 0, queuedAsks: 0, asksToday: 0 };
    const away = inForce(s.away, now);
    const unavailable = unavailableNow(engine, e, s, away, now);
    // Written out, not spread from the registry entry: this runs for every expert at every refresh of
    // the Experts page, and spreading objects of optional fields cost most of the route.
    const view: ExpertView = {
      id: e.id,
      name: e.name,
      topics: e.topics,
      escalation_to: e.escalation_to,
      reached_on: e.reach,
      muted: s.muted,
      open_asks: s.openAsks,
      asks_today: s.asksToday,
      available_now: unavailable === null,
      next_available_at: unavailable?.next ?? null,
      unavailable: unavailable === null ? null : unavailable.until === undefined ? { why: unavailable.why } : { why: unavailable.why, until: unavailable.until },
      away: away && awayView(away),
    };
    if (e.slack !== null) view.slack = e.slack;
    if (e.email !== null) view.email = e.email;
    if (e.teams !== null) view.teams = e.teams;
    if (e.channels !== null) view.channels = [...e.channels];
    if (e.timezone !== null) view.timezone = e.timezone;
    if (e.working_hours !== null) view.working_hours = e.working_hours;
    if (e.max_open_asks !== null) view.max_open_asks = e.max_open_asks;
    if (e.max_asks_per_day !== null) view.max_asks_per_day = e.max_asks_per_day;
    return view;
  });
}

/**
 * Why a new question would not be sent to an expert this minute under the default limits, until when
 * that reason lasts, and when a question could next be sent (`next`: also after the hours that follow
 * a cap's reset), when known.
 */
function unavailableNow(engine: Pick<Engine, 'config' | 'presence'>, expert: RegisteredExpert, s: ExpertLiveState, away: AwayState | null, now: number): (Unavailable & { next?: string }) | null {
  const { defaults, org } = engine.config;
  if (s.muted) return { why: 'muted' };
  if (away) {
    // Back at `until`, or later when their working hours (or quiet hours) start later.
    const then = expertAvailability(engine, expert, defaults.quiet_hours, away.until);
    const next = then.available ? away.until : then.until;
    return { why: 'away', until: iso(away.until), ...(next !== null ? { next: iso(next) } : {}) };
  }
  if (isCapped(s, defaults, expert)) {
    if (s.openAsks >= limitsFor(defaults, expert).max_open_asks_per_expert) return { why: 'cap' };
    const reset = startOfNextLocalDay(now, expert.timezone ?? org.timezone);
    const then = expertAvailability(engine, expert, defaults.quiet_hours, reset);
    const next = then.available ? reset : then.until;
    return { why: 'cap', until: iso(reset), ...(next !== null ? { next: iso(next) } : {}) };
  }
  const free = expertAvailability(engine, expert, defaults.quiet_hours, now);
  if (free.available) return null;
  // Away and do-not-disturb here are the Slack status (when consulted and fresh): an away spell is handled above.
  const why = free.why;
  return free.until === null ? { why } : { why, until: iso(free.until), next: iso(free.until) };
}

/**
 * Full replace of the registry. The array is already validated on its own; here
 * it is checked against the rest of the configuration, then the file is rewritten and only then the
 * registry swapped, so the file stays the source of truth. Live state is kept by id.
 */
export function replaceExperts(engine: Attendance & Pick<Engine, 'store' | 'clock' | 'log' | 'channels'>, entries: ExpertEntry[]): Promise<ExpertView[]> {
  checkFallbacks(engine.config, entries);
  // A `channels` entry naming a channel the service does not have is refused here (a file that does so
  // is warned about instead, so the rest of it still loads).
  const channels = checkChannels(entries, engine.channels);
  if (channels.unconfigured.length > 0) throw badRequest('The registry names a channel this service does not have.', channels.unconfigured);
  if (engine.config.file) {
    try {
      writeExpertsSection(engine.config.file, entries);
    } catch (error) {
      engine.log.error({ err: error, file: engine.config.file }, 'could not write the experts section');
      throw unwritableConfig(engine.config.file, error as NodeJS.ErrnoException);
    }
  }
  installExperts(engine, entries);
  for (const line of channels.unreachable) engine.log.warn(line);
  engine.log.info({ experts: entries.length }, 'expert registry replaced');
  return listExperts(engine);
}

/**
 * The registry's rule that spans the rest of the configuration: an expert a `topics.<name>.fallback`
 * points to stays. Used by `PUT /experts` and by a reload of the file alike.
 */
export function checkFallbacks(config: Engine['config'], entries: readonly ExpertEntry[]): void {
  const ids = new Set(entries.map((e) => e.id));
  const orphans = Object.entries(config.topics).filter(([, t]) => t.fallback !== null && !ids.has(t.fallback));
  if (orphans.length > 0) {
    throw badRequest(
      'The new registry removes an expert that a topic uses as its fallback.',
      orphans.map(([topic, t]) => ({ path: `topics.${topic}.fallback`, message: `expert "${t.fallback}" would no longer exist` })),
    );
  }
}

/** Logs what the registry's channels leave out: unconfigured channels named, experts nobody can reach. */
export function warnAboutChannels(engine: Pick<Engine, 'channels' | 'log'>, entries: readonly ExpertEntry[]): void {
  const { unconfigured, unreachable } = checkChannels(entries, engine.channels);
  for (const { path, message } of unconfigured) engine.log.warn({ path }, `${path} ${message}`);
  for (const line of unreachable) engine.log.warn(line);
}

/**
 * Swaps in a new registry. Live state (mutes, counts) is in the database by id, so it carries over;
 * the scheduler sees a new registry object and gives all waiting work its chance at its next tick.
 */
export function installExperts(engine: Pick<Engine, 'experts' | 'channels'>, entries: readonly ExpertEntry[]): void {
  engine.experts = new ExpertRegistry(entries, engine.channels.running);
}

/** Whether `entries` are what the registry already holds, in the same order (order is the last tie-break). */
export function sameExperts(experts: Engine['experts'], entries: readonly ExpertEntry[]): boolean {
  const running = experts.experts;
  return (
    running.length === entries.length &&
    entries.every((e, i) => {
      const r = running[i]!;
      return (
        r.id === e.id &&
        r.name === e.name &&
        (r.escalation_to ?? null) === (e.escalation_to ?? null) &&
        r.topics.join('\n') === e.topics.join('\n') &&
        r.timezone === (e.timezone ?? null) &&
        r.working_hours === (e.working_hours ?? null) &&
        r.max_open_asks === (e.max_open_asks ?? null) &&
        r.max_asks_per_day === (e.max_asks_per_day ?? null) &&
        r.slack === (e.slack ?? null) &&
        r.email === (e.email ?? null) &&
        r.teams === (e.teams ?? null) &&
        (r.channels ?? []).join() === (e.channels ?? []).join()
      );
    })
  );
}

/** Codes of a file or file system that refuses writes by design (a mounted config map, a read-only mount). */
const READ_ONLY_CODES = new Set(['EROFS', 'EACCES', 'EPERM']);

/**
 * Why `PUT /experts` could not write the file: 409 when the file is read-only (edit it where it comes
 * from; every instance reloads it), 500 for anything else, naming the file and the system's reason.
 */
export function unwritableConfig(file: string, error: NodeJS.ErrnoException): AppError {
  const reason = error.code ? systemReason(error) : error.message;
  if (error.code && READ_ONLY_CODES.has(error.code)) {
    return new AppError(
      'conflict',
      `The experts were not changed: the configuration file ${file} is read-only (${reason}). ` +
        'Edit the experts where the file comes from (a mounted config map, for example); the server reloads them when the file changes.',
    );
  }
  return new AppError(
    'internal',
    `The experts were not changed: the configuration file ${file} cannot be written (${error.code ?? error.message}). ` +
      'Let the server write it (file and folder), or edit the file yourself: the server reloads its experts when the file changes.',
  );
}

/**
 * Mutes an expert and passes each of their open asks on along the escalation chain, as the expert's
 * own `mute` reply does. The caller holds the transaction. Returns how many asks were passed on.
 */
export async function muteAndPassOn(engine: Routing, tx: Tx, expertId: string, actor: string, now: number): Promise<number> {
  const open = await tx.asks.openOf(expertId);
  await tx.asks.setMuted(expertId, true, now);
  const involved = [expertId];
  for (const ask of open) {
    const request = (await tx.requests.get(ask.request_id))!;
    await audit(engine, tx, { request_id: request.id, at: now, type: 'muted', actor, data: { ask_id: ask.id } });
    await countPass(tx, request, ask.expert_id, 'mutes', now);
    await passOn(engine, tx, request, ask, 'mute', now);
  }
  for (const ask of open) involved.push(...(await tx.asks.listFor(ask.request_id)).map((x) => x.expert_id));
  await placeWaiting(engine, tx, new Set(involved), now);
  return open.length;
}

/** Mutes an expert from the API (`POST /experts/{id}/mute`): no more asks until unmuted; open ones pass on. */
export async function muteExpert(engine: Routing & Pick<Engine, 'store'>, expertId: string, mutedBy: string): Promise<ExpertView> {
  if (!engine.experts.has(expertId)) throw notFound('Expert', expertId);
  const passed = await engine.store.transaction((tx) => muteAndPassOn(engine, tx, expertId, `reviewer:${mutedBy}`, engine.clock.now()));
  engine.log.info({ expert_id: expertId, muted_by: mutedBy, passed_on: passed }, 'expert muted');
  return (await listExperts(engine)).find((e) => e.id === expertId)!;
}

/** Clears a mute; asks and held requests waiting for this expert get their chance in the same transaction. */
export async function unmuteExpert(engine: Routing & Pick<Engine, 'store'>, expertId: string): Promise<ExpertView> {
  if (!engine.experts.has(expertId)) throw notFound('Expert', expertId);
  await engine.store.transaction(async (tx) => {
    const now = engine.clock.now();
    await tx.asks.setMuted(expertId, false, now);
    await placeWaiting(engine, tx, new Set([expertId]), now);
  });
  engine.log.info({ expert_id: expertId }, 'expert unmuted');
  return (await listExperts(engine)).find((e) => e.id === expertId)!;
}
