import type { AskRecord } from '../../domain/records.js';
import type { AutoReplyNotice, InboundOutcome, RefusedNotice, UndeliverableNotice } from '../../transport/transport.js';
import type { Tx } from '../../store/store.js';
import { audit, countOne, type Engine, type Routing } from '../engine/index.js';
import { askUndeliverable, passOnForAway, placeWaiting } from '../routing/index.js';

/** What a channel reports besides replies, by kind. */
export type ChannelNotice =
  | ({ kind: 'auto_reply' } & AutoReplyNotice)
  | ({ kind: 'undeliverable' } & UndeliverableNotice)
  | ({ kind: 'refused' } & RefusedNotice);

/**
 * What a channel reports besides replies, each in one transaction with the record that its event was
 * seen (a mail taken twice, by two instances or from the mailbox and the inbound route, acts once).
 */

/** An expert's out-of-office reply to an ask: the ask is passed on as for an away status (it waits when nobody else can take it). */
export async function receiveAutoReply(engine: Routing, tx: Tx, notice: AutoReplyNotice): Promise<InboundOutcome> {
  const now = engine.clock.now();
  if (notice.eventId !== undefined && !(await tx.chat.markEvent(notice.eventId, now))) return { outcome: 'duplicate' };
  const ask = await askNamed(tx, notice.askId, notice.thread);
  if (!ask || ask.expert_id !== notice.expertId) return { outcome: 'unknown' };
  if (ask.state !== 'open' && ask.state !== 'queued') return { outcome: 'ignored', request_id: ask.request_id };
  const request = (await tx.requests.get(ask.request_id))!;
  const to = await passOnForAway(engine, tx, request, ask, now, { source: notice.source });
  if (to !== null) await placeWaiting(engine, tx, new Set([ask.expert_id, to]), now);
  return { outcome: to === null ? 'waiting' : 'passed_on', request_id: request.id };
}

/** A bounce of a sent ask: a permanent failure of the channel it went out on (the ask moves on). */
export async function receiveUndeliverable(engine: Routing, tx: Tx, notice: UndeliverableNotice): Promise<InboundOutcome> {
  const now = engine.clock.now();
  if (notice.eventId !== undefined && !(await tx.chat.markEvent(notice.eventId, now))) return { outcome: 'duplicate' };
  const ask = await tx.chat.askByRef(notice.thread);
  if (!ask) return { outcome: 'unknown' };
  await askUndeliverable(engine, tx, ask.id, notice.error, now, notice.channel);
  return { outcome: 'undeliverable', request_id: ask.request_id };
}

/** Something refused at the door (a reply token that does not verify, DMARC): counted, and audited when it names a request. */
export async function receiveRefused(engine: Pick<Engine, 'clock' | 'counters'>, tx: Tx, notice: RefusedNotice): Promise<InboundOutcome> {
  const now = engine.clock.now();
  if (notice.eventId !== undefined && !(await tx.chat.markEvent(notice.eventId, now))) return { outcome: 'duplicate' };
  countOne(engine.counters.refusedInbound, `${notice.channel} ${notice.why}`);
  const ask = notice.askId ? await tx.asks.get(notice.askId) : undefined;
  if (!ask) return { outcome: 'refused' };
  await audit(engine, tx, { request_id: ask.request_id, at: now, type: 'ignored_reply', actor: `${notice.channel}:unverified`, data: { ask_id: ask.id, why: notice.why, channel: notice.channel } });
  return { outcome: 'refused', request_id: ask.request_id };
}

async function askNamed(tx: Tx, askId: string | undefined, thread: AutoReplyNotice['thread']): Promise<AskRecord | undefined> {
  if (askId !== undefined) return tx.asks.get(askId);
  return thread ? tx.chat.askByRef(thread) : undefined;
}
