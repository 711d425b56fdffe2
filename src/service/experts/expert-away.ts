import { iso } from '../../clock.js';
import { awayUntil } from '../../core/away-until.js';
import type { AwayState } from '../../domain/records.js';
import { badRequest, notFound } from '../../errors.js';
import type { Tx } from '../../store/store.js';
import { awaysAt } from '../availability/index.js';
import { audit, type Engine, type Routing, expertTrail } from '../engine/index.js';
import { passOnForAway, placeWaiting } from '../routing/index.js';

export interface AwayInput {
  /** An ISO date or time, or a duration from now (`3d`). */
  until: string;
  delegate_to?: string | null;
  note?: string | null;
}

/** An away spell on the wire. */
export interface AwayView {
  until: string;
  delegate_to: string | null;
  note: string | null;
  set_by: string;
  set_at: string;
}

export const awayView = (a: AwayState): AwayView => ({ until: iso(a.until), delegate_to: a.delegate_to, note: a.note, set_by: a.set_by, set_at: iso(a.set_at) });

/**
 * Sets an expert away (`PUT /experts/{id}/away`), replacing any spell in force, and in the same
 * transaction passes every question waiting on them (sent or not yet sent) on to their delegate when
 * the delegate can be asked now, else along their escalation chain. `by` is who set it (`reviewer:…`).
 */
export async function setAway(engine: Routing & Pick<Engine, 'store'>, expertId: string, input: AwayInput, by: string): Promise<void> {
  const expert = engine.experts.get(expertId);
  if (!expert) throw notFound('Expert', expertId);
  const now = engine.clock.now();
  const until = awayUntil(input.until, now, expert.timezone ?? engine.config.org.timezone);
  if (!until.ok) throw badRequest('The away spell was not set.', [{ path: 'until', message: until.problem }]);
  const delegate = input.delegate_to ?? null;
  if (delegate !== null && delegate === expertId) throw badRequest('The away spell was not set.', [{ path: 'delegate_to', message: 'an expert cannot stand in for themselves' }]);
  if (delegate !== null && !engine.experts.has(delegate)) throw badRequest('The away spell was not set.', [{ path: 'delegate_to', message: `expert "${delegate}" does not exist` }]);
  const away: AwayState = { until: until.at, delegate_to: delegate, note: input.note?.trim() || null, set_by: by, set_at: now };

  const passed = await engine.store.transaction(async (tx) => {
    await tx.asks.setAway(expertId, away, now);
    await audit(engine, tx, { request_id: expertTrail(expertId), at: now, type: 'away', actor: by, data: { until: iso(away.until), delegate_to: away.delegate_to, note: away.note } });
    return passOnWaiting(engine, tx, expertId, now);
  });
  engine.log.info({ expert_id: expertId, until: iso(away.until), delegate_to: delegate, set_by: by, passed_on: passed }, 'expert away');
}

/** Every open and not yet sent ask of an away expert, passed on; the experts involved get their waiting work. */
async function passOnWaiting(engine: Routing, tx: Tx, expertId: string, now: number): Promise<number> {
  const asks = [...(await tx.asks.openOf(expertId)), ...(await tx.asks.queued([expertId]))];
  const involved = new Set([expertId]);
  for (const ask of asks) {
    const request = (await tx.requests.get(ask.request_id))!;
    const to = await passOnForAway(engine, tx, request, ask, now);
    if (to) involved.add(to);
  }
  await placeWaiting(engine, tx, involved, now);
  return asks.length;
}

/**
 * Ends an expert's away spell now (`DELETE /experts/{id}/away`): nothing to do when they are not away.
 * Questions waiting for them get their chance in the same transaction.
 */
export async function endAway(engine: Routing & Pick<Engine, 'store'>, expertId: string, by: string): Promise<void> {
  if (!engine.experts.has(expertId)) throw notFound('Expert', expertId);
  const now = engine.clock.now();
  const ended = await engine.store.transaction(async (tx) => {
    const away = (await awaysAt(tx, [expertId], now)).get(expertId);
    if (!away || !(await tx.asks.endAway(expertId, away.until, now))) return false;
    await audit(engine, tx, { request_id: expertTrail(expertId), at: now, type: 'back', actor: by, data: { until: iso(away.until), early: true } });
    await placeWaiting(engine, tx, new Set([expertId]), now);
    return true;
  });
  if (ended) engine.log.info({ expert_id: expertId, by }, 'expert back');
}

/**
 * The scheduler's part: ends the away spells whose time has come, each once however many instances
 * tick at once (the store clears a spell only if it still ends then), and returns who is back so their
 * waiting work gets its chance. One read when nobody's spell is due.
 */
export async function endDueAways(engine: Pick<Engine, 'store' | 'clock' | 'log'>, now: number): Promise<string[]> {
  const due = await engine.store.asks.dueAways(now);
  if (due.length === 0) return [];
  const back = await engine.store.transaction(async (tx) => {
    const ended: string[] = [];
    for (const { expert_id, until } of due) {
      if (!(await tx.asks.endAway(expert_id, until, now))) continue;
      await audit(engine, tx, { request_id: expertTrail(expert_id), at: now, type: 'back', actor: 'system', data: { until: iso(until) } });
      ended.push(expert_id);
    }
    return ended;
  });
  for (const id of back) engine.log.info({ expert_id: id }, 'expert back: away spell ended');
  return back;
}
