import { composeAnswerInThread, composeNoOpenAsk } from '../../core/compose-feedback.js';
import { readReply } from '../../core/read-reply.js';
import { AppError } from '../../errors.js';
import type { AskRecord } from '../../domain/records.js';
import type { InboundOutcome, InboundReply } from '../../transport/transport.js';
import { tellExpert, type Engine, type Routing } from '../engine/index.js';
import type { Tx } from '../../store/store.js';
import { muteAndPassOn } from '../experts/index.js';
import { receiveReply } from './receive-reply.js';

/**
 * A message, button or modal from a chat platform, in one transaction with the record
 * that its event id was seen, so a retried or redelivered event is processed once:
 * - tied to an ask (a button, the Answer modal, a reply in the ask's thread): that ask, and only
 *   when it is the asked expert's (anyone else's click changes nothing);
 * - top level: `mute` and `unmute` apply to the expert (and `mute` passes on every open ask); an answer
 *   or `skip` goes to the one open ask, and with none or several it is not guessed: the expert is told.
 */
export async function receiveInbound(engine: Routing & Pick<Engine, 'transportName' | 'review' | 'llm' | 'channels'>, tx: Tx, input: InboundReply): Promise<InboundOutcome> {
  const now = engine.clock.now();
  if (input.eventId !== undefined && !(await tx.chat.markEvent(input.eventId, now))) return { outcome: 'duplicate' };
  const ask = await askOf(tx, input);
  if (ask === 'not_yours') return { outcome: 'not_yours' };
  try {
    // In a savepoint: a reply refused half-way leaves nothing behind but the event id.
    return await tx.savepoint((inner) =>
      ask ? receiveReply(engine, inner, { expert_id: input.expertId, text: input.text, request_id: ask.request_id }) : topLevel(engine, inner, input, now),
    );
  } catch (error) {
    // An unknown sender or a question that is gone: nothing to record, and nothing for the platform to retry.
    if (error instanceof AppError && error.code === 'not_found') return { outcome: 'unknown' };
    throw error;
  }
}

async function askOf(tx: Tx, input: InboundReply): Promise<AskRecord | 'not_yours' | null> {
  const ask = input.askId !== undefined
    ? await tx.asks.get(input.askId)
    : input.thread !== undefined
      ? await tx.chat.askByRef(input.thread)
      : undefined;
  if (!ask) return null;
  return ask.expert_id === input.expertId ? ask : 'not_yours';
}

async function topLevel(engine: Routing & Pick<Engine, 'transportName' | 'review' | 'llm' | 'channels'>, tx: Tx, input: InboundReply, now: number): Promise<InboundOutcome> {
  const kind = readReply(input.text);
  const open = await tx.asks.openOf(input.expertId);
  if (kind === 'unmute' || open.length === 1 || (kind === 'mute' && open.length === 0)) {
    return receiveReply(engine, tx, { expert_id: input.expertId, text: input.text, request_id: open[0]?.request_id });
  }
  if (kind === 'mute') {
    await muteAndPassOn(engine, tx, input.expertId, `expert:${input.expertId}`, now);
    await tellExpert(engine, tx, input.expertId, `You are muted: no more questions until you reply \`unmute\`. Your ${open.length} open questions were passed on.`, now, input.channel ?? null);
    return { outcome: 'muted', request_id: null };
  }
  if (!engine.experts.has(input.expertId)) return { outcome: 'unknown' };
  await tellExpert(engine, tx, input.expertId, open.length === 0 ? composeNoOpenAsk() : composeAnswerInThread(open.length, input.channel), now, input.channel ?? null);
  return { outcome: open.length === 0 ? 'no_open_ask' : 'ambiguous' };
}
