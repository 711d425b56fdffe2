import { policyOf, type Policy } from '../../config/config-schema.js';
import { findCandidates, isCapped } from '../../core/route-request.js';
import { compareWaiting, type WaitingKey } from '../../core/waiting-order.js';
import { isWaiting, type AskRecord, type RequestRecord } from '../../domain/records.js';
import { StorageUnavailable } from '../../store/errors.js';
import type { HeldRequest, Reads, Tx, WaitingAsk } from '../../store/store.js';
import { type Engine, type Routing, type Attendance, type Roster, noteFirstAsk, failRequest, updateRequest, writeChanges } from '../engine/index.js';
import { passOn, passOnForAway } from './pass-on.js';
import { trySendAsk, type SendOutcome } from './place-asks.js';
import { routeLive } from './route-live.js';
import { awayByStatus } from '../availability/index.js';
import { askAsRouted } from './route-and-ask.js';

/** Experts whose capacity or availability may have changed, or `all` (day rollover, restart, new registry). */
export type WakeScope = ReadonlySet<string> | 'all';

export interface PlaceResult {
  /** Queued asks sent. */
  sent: number;
  /** Held requests routed to an expert with room. */
  placed: number;
}

type Item = (WaitingKey & { kind: 'ask'; ask: WaitingAsk }) | (WaitingKey & { kind: 'held'; held: HeldRequest });

/**
 * Gives waiting work its chance, oldest submission first: queued asks whose quiet hours are over or
 * whose expert is in `scope` are sent when the limits allow, and held requests with a candidate in
 * `scope` are routed again. Runs in the caller's transaction (a reply, a cancel, a tick); each item in
 * its own savepoint, so one bad row is logged and cannot stop the others.
 *
 * Cheap when nothing can have changed: with an empty scope it is one indexed query for asks whose
 * quiet hours ended. Experts found capped are remembered for the rest of the pass, so a long queue
 * behind a busy expert costs one check, not one per ask.
 */
export async function placeWaiting(engine: Routing, tx: Tx, scope: WakeScope, now: number, depth = 0): Promise<PlaceResult> {
  const result: PlaceResult = { sent: 0, placed: 0 };
  const items = await collect(engine, tx, scope, now);
  if (items.length === 0) return result;
  items.sort(compareWaiting);

  const blocked = new Set<string>();
  const freed = new Set<string>();
  for (const item of items) {
    const requestId = item.kind === 'ask' ? item.ask.request_id : item.held.id;
    await guarded(engine, tx, requestId, now, async (inner) => {
      if (item.kind === 'ask') await sendWaitingAsk(engine, inner, item.ask, now, blocked, freed, result);
      else await placeHeld(engine, inner, item.held, now, blocked, result);
    });
  }
  // A muted expert's ask passed on can end its request and release other experts: one more pass.
  if (freed.size > 0 && depth < 3) {
    const more = await placeWaiting(engine, tx, freed, now, depth + 1);
    result.sent += more.sent;
    result.placed += more.placed;
  }
  return result;
}

/** Whether `placeWaiting` could have anything to do: a scope to wake, or an ask whose quiet hours ended (a read). */
export async function mayPlace(reads: Reads, scope: WakeScope, now: number): Promise<boolean> {
  return scope === 'all' || scope.size > 0 || (await reads.asks.dueQueued(now)).length > 0;
}

async function collect(engine: Roster, tx: Tx, scope: WakeScope, now: number): Promise<Item[]> {
  const byId = new Map<string, WaitingAsk>();
  for (const ask of await tx.asks.dueQueued(now)) byId.set(ask.id, ask);
  if (scope === 'all' || scope.size > 0) {
    for (const ask of await tx.asks.queued(scope === 'all' ? null : [...scope])) byId.set(ask.id, ask);
  }
  const items: Item[] = [...byId.values()].map((ask) => ({
    kind: 'ask',
    ask,
    submittedAt: ask.request_created_at,
    requestId: ask.request_id,
    createdAt: ask.created_at,
    id: ask.id,
  }));
  if (scope !== 'all' && scope.size === 0) return items;
  for (const held of await tx.requests.held()) {
    if (scope !== 'all') {
      const candidates = findCandidates(held.topic, held.target_experts, engine.experts, engine.config.topics);
      if (!candidates.some((c) => scope.has(c.expertId))) continue;
    }
    items.push({ kind: 'held', held, submittedAt: held.created_at, requestId: held.id, createdAt: held.created_at, id: held.id });
  }
  return items;
}

/** Caps depend on the request's policy, so "capped" is remembered per expert and limits. */
const capKey = (expertId: string, policy: Policy) =>
  `${expertId}\u0000${policy.max_open_asks_per_expert}\u0000${policy.max_asks_per_expert_per_day}`;

/**
 * Gives the queued asks of one request their chance, as `placeWaiting` would (limits, quiet hours, a
 * mute passed on): for a request whose draft just ended, without re-checking every expert's waiting
 * work. Runs in the caller's transaction, which read `request` (under its lock, where the engine
 * takes one), so its asks read now are current; experts a passed-on ask released get their waiting
 * work too. An ask sent to an expert not asked on this request before is noted for the sender
 * (`noteFirstAsk`) unless an ask was passed on meanwhile.
 */
export async function placeAsksOf(engine: Routing, tx: Tx, request: RequestRecord, now: number): Promise<void> {
  const result: PlaceResult = { sent: 0, placed: 0 };
  const freed = new Set<string>();
  const asks = await tx.asks.listFor(request.id);
  const first: string[] = [];
  let current: RequestRecord | undefined = request;
  let passedOn = false;
  for (const ask of asks) {
    if (ask.state !== 'queued') continue;
    const outcome = await sendQueuedAsk(engine, tx, current, ask, now, new Set(), freed, result);
    if (outcome === 'muted' || outcome === 'set_away' || outcome === 'status_away') {
      // Passing an ask on may have changed the request (escalated, failed): read it again.
      passedOn = true;
      current = await tx.requests.get(request.id);
    } else if (outcome === 'sent' && asks.every((a) => a === ask || a.expert_id !== ask.expert_id)) {
      first.push(ask.id);
    }
  }
  if (!passedOn) for (const id of first) noteFirstAsk(tx, id);
  // (An ask passed on wrote the request's gathered changes first: none are left to write here.)
  if (freed.size > 0) await placeWaiting(engine, tx, freed, now);
}

async function sendWaitingAsk(
  engine: Attendance & Pick<Engine, 'clock' | 'threadedTransport'>,
  tx: Tx,
  waiting: AskRecord,
  now: number,
  blocked: Set<string>,
  freed: Set<string>,
  result: PlaceResult,
): Promise<void> {
  const request = await tx.requests.get(waiting.request_id);
  // Read again now that the request is held: another instance may have sent or released it since.
  const ask = await tx.asks.get(waiting.id);
  if (!ask || ask.state !== 'queued') return;
  await sendQueuedAsk(engine, tx, request, ask, now, blocked, freed, result);
}

/** Tries a queued ask, current as of `request` (read in this transaction); what came of it, or `released` with its request closed. */
async function sendQueuedAsk(
  engine: Attendance & Pick<Engine, 'clock' | 'threadedTransport'>,
  tx: Tx,
  request: RequestRecord | undefined,
  ask: AskRecord,
  now: number,
  blocked: Set<string>,
  freed: Set<string>,
  result: PlaceResult,
): Promise<SendOutcome | 'released'> {
  if (request && isWaiting(request)) await followDefaults(engine.config, tx, request, now);
  if (!request || !isWaiting(request)) {
    // Closing a request releases its asks; a queued ask left on a closed one is let go here.
    await tx.asks.update(ask.id, { state: 'released', closed_at: now, send_after: null });
    return 'released';
  }
  const key = capKey(ask.expert_id, request.routing_policy);
  if (blocked.has(key)) {
    if (ask.send_after !== null) await tx.asks.update(ask.id, { send_after: null });
    return 'capped';
  }
  const outcome = await trySendAsk(engine, tx, request, ask, now);
  if (outcome === 'sent') result.sent++;
  else if (outcome === 'capped') blocked.add(key);
  else if (outcome === 'muted' || outcome === 'set_away' || outcome === 'status_away') {
    // The expert muted (or is away) while this ask waited: pass it on exactly as their `mute` reply (or going away) would have.
    // Passing on reads and changes the stored request: changes gathered so far are written first.
    await writeChanges(tx, request);
    const before = await liveExperts(tx, request.id);
    if (outcome === 'muted') await passOn(engine, tx, request, ask, 'mute', now);
    else if (outcome === 'set_away') await passOnForAway(engine, tx, request, ask, now);
    else if (!(await passOnForAway(engine, tx, request, ask, now, { source: 'slack_status', until: awayByStatus(engine.presence, ask.expert_id, now)! }))) {
      // Away by their chat status and nobody else can take it: the ask waits for them.
      return trySendAsk(engine, tx, request, ask, now, false, false);
    }
    const after = await liveExperts(tx, request.id);
    for (const id of before) if (!after.has(id)) freed.add(id);
  } else if (outcome === 'unknown_expert') {
    // Removed from the registry while the ask waited: nobody to send it to.
    await tx.asks.update(ask.id, { state: 'released', closed_at: now });
  }
  return outcome;
}

async function placeHeld(engine: Routing, tx: Tx, held: HeldRequest, now: number, blocked: Set<string>, result: PlaceResult): Promise<void> {
  const request = await tx.requests.get(held.id);
  if (!request || !request.held || request.status !== 'queued') return;
  const policy = await followDefaults(engine.config, tx, request, now);
  const candidates = findCandidates(request.topic, request.target_experts, engine.experts, engine.config.topics);
  if (candidates.length > 0 && candidates.every((c) => blocked.has(capKey(c.expertId, policy)))) return;

  const { decision, states } = await routeLive(engine, tx, candidates, policy, now);
  if (decision.outcome === 'held') {
    for (const c of candidates) {
      const state = states.get(c.expertId);
      if (state && isCapped(state, policy, engine.experts.get(c.expertId))) blocked.add(capKey(c.expertId, policy));
    }
    return;
  }
  if (decision.outcome === 'failed') {
    await failRequest(engine, tx, request, 'no_expert_found', 'Every expert who could take this held request is now muted, away or gone.', now);
    return;
  }
  request.held = false;
  await tx.requests.update(request.id, { held: false, updated_at: now });
  await askAsRouted(engine, tx, request, decision, now, { after: 'held' });
  engine.log.info({ request_id: request.id, experts: decision.ask }, 'held request placed: an expert has room now');
  result.placed++;
}

/**
 * A request that waits to be sent follows the current `defaults` for every routing field it did not
 * set itself, so raising a limit in the configuration (and restarting) releases what it held. Its
 * give-up deadline stays as it was fixed at submission. Returns the policy now in force.
 */
async function followDefaults(config: Engine['config'], tx: Tx, request: RequestRecord, now: number): Promise<Policy> {
  if (request.own_policy === null) return request.routing_policy;
  const current: Policy = { ...policyOf(config.defaults), ...request.own_policy, give_up_after: request.routing_policy.give_up_after };
  const changed = (Object.keys(current) as Array<keyof Policy>).some((k) => JSON.stringify(current[k]) !== JSON.stringify(request.routing_policy[k]));
  if (changed) await updateRequest(tx, request, { routing_policy: current, updated_at: now });
  return current;
}

async function liveExperts(tx: Tx, requestId: string): Promise<Set<string>> {
  return new Set((await tx.asks.listFor(requestId)).filter((a) => a.state === 'open').map((a) => a.expert_id));
}

/**
 * Runs one request's piece of work in a savepoint. If it throws, the piece is rolled back, logged with
 * the request id, and the request fails with reason `error` so it is not retried forever;
 * the service keeps running either way.
 */
export async function guarded(engine: Pick<Engine, 'clock' | 'log' | 'threadedTransport'>, tx: Tx, requestId: string, now: number, work: (tx: Tx) => Promise<void>, freed?: Set<string>): Promise<boolean> {
  try {
    await tx.savepoint(work);
    return true;
  } catch (error) {
    // The storage failed, not the request: nothing is to blame, and the whole transaction fails.
    if (error instanceof StorageUnavailable) throw error;
    engine.log.error({ err: error, request_id: requestId }, 'scheduled work on a request failed');
    try {
      await tx.savepoint(async (tx) => {
        const request = await tx.requests.get(requestId);
        if (request && isWaiting(request)) {
          const released = await failRequest(engine, tx, request, 'error', 'An unexpected error occurred while processing this request.', now);
          for (const id of released) freed?.add(id);
        }
      });
    } catch (again) {
      engine.log.error({ err: again, request_id: requestId }, 'could not fail the request after an error');
    }
    return false;
  }
}
