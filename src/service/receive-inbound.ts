import { composeAnswerInThread, composeNoOpenAsk } from '../core/compose-feedback.js';
import { readReply } from '../core/read-reply.js';
import { AppError } from '../errors.js';
import type { AskRecord } from '../domain/records.js';
import type { InboundOutcome, InboundReply } from '../transport/transport.js';
import { tellExpert } from './close-ask.js';
import type { Engine } from './engine.js';
import { muteAndPassOn } from './experts.js';
import { receiveReply } from './receive-reply.js';

/**
 * A message, button or modal from a chat platform, in one transaction with the record
 * that its event id was seen, so a retried or redelivered event is processed once:
 * - tied to an ask (a button, the Answer modal, a reply in the ask's thread): that ask, and only
 *   when it is the asked expert's (anyone else's click changes nothing);
 * - top level: `mute` and `unmute` apply to the expert (and `mute` passes on every open ask); an answer
 *   or `skip` goes to the one open ask, and with none or several it is not guessed: the expert is told.
 */
export function receiveInbound(engine: Engine, input: InboundReply): InboundOutcome {
  const now = engine.clock.now();
  return engine.store.transaction(() => {
    if (input.eventId !== undefined && !engine.store.markChatEvent(input.eventId, now)) return { outcome: 'duplicate' };
    const ask = askOf(engine, input);
    if (ask === 'not_yours') return { outcome: 'not_yours' };
    try {
      if (ask) return receiveReply(engine, { expert_id: input.expertId, text: input.text, request_id: ask.request_id });
      return topLevel(engine, input, now);
    } catch (error) {
      // An unknown sender or a question that is gone: nothing to record, and nothing for the platform to retry.
      if (error instanceof AppError && error.code === 'not_found') return { outcome: 'unknown' };
      throw error;
    }
  });
}

function askOf(engine: Engine, input: InboundReply): AskRecord | 'not_yours' | null {
  const ask = input.askId !== undefined
    ? engine.store.getAsk(input.askId)
    : input.thread !== undefined
      ? engine.store.askByChatRef(input.thread)
      : undefined;
  if (!ask) return null;
  return ask.expert_id === input.expertId ? ask : 'not_yours';
}

function topLevel(engine: Engine, input: InboundReply, now: number): InboundOutcome {
  const kind = readReply(input.text);
  const open = engine.store.openAsksOf(input.expertId);
  if (kind === 'unmute' || open.length === 1 || (kind === 'mute' && open.length === 0)) {
    return receiveReply(engine, { expert_id: input.expertId, text: input.text, request_id: open[0]?.request_id });
  }
  if (kind === 'mute') {
    muteAndPassOn(engine, input.expertId, `expert:${input.expertId}`, now);
    tellExpert(engine, input.expertId, `You are muted: no more questions until you reply \`unmute\`. Your ${open.length} open questions were passed on.`, now);
    return { outcome: 'muted', request_id: null };
  }
  if (!engine.experts.has(input.expertId)) return { outcome: 'unknown' };
  tellExpert(engine, input.expertId, open.length === 0 ? composeNoOpenAsk() : composeAnswerInThread(open.length), now);
  return { outcome: open.length === 0 ? 'no_open_ask' : 'ambiguous' };
}
