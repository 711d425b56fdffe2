import { AppError } from '../../errors.js';
import type { AwayRequest, ExpertHome } from '../../transport/transport.js';
import { inForce } from '../availability/index.js';
import { liveStates, type Engine, type Routing, type Roster } from '../engine/index.js';
import { endAway, setAway } from './expert-away.js';

/**
 * What an expert's home page in the chat platform shows: their open questions, topics, mute and away
 * state, and who could stand in for them. Null for someone who is not a registered expert.
 */
export async function expertHome(engine: Roster & Pick<Engine, 'store' | 'clock'>, expertId: string): Promise<ExpertHome | null> {
  const expert = engine.experts.get(expertId);
  if (!expert) return null;
  const now = engine.clock.now();
  // One read: the live state carries the away spell.
  const state = (await liveStates(engine, engine.store, [expertId], now)).get(expertId);
  const away = inForce(state?.away, now);
  const asks = (await engine.store.asks.openOf(expertId)).sort((a, b) => (a.sent_at ?? a.created_at) - (b.sent_at ?? b.created_at));
  const openQuestions: ExpertHome['openQuestions'] = [];
  for (const ask of asks) {
    const request = await engine.store.requests.get(ask.request_id);
    if (request) openQuestions.push({ requestId: request.id, question: request.asked_question ?? request.question, askedAt: ask.sent_at ?? ask.created_at });
  }
  return {
    expertId,
    name: expert.name,
    topics: [...expert.topics],
    muted: state?.muted ?? false,
    away: away && { until: away.until, delegateTo: away.delegate_to, note: away.note },
    openQuestions,
    colleagues: engine.experts.experts.filter((e) => e.id !== expertId).map((e) => ({ id: e.id, name: e.name })),
    timeZone: expert.timezone ?? engine.config.org.timezone,
  };
}

/**
 * An expert going away (or coming back) from their home page: the same operation as
 * `PUT`/`DELETE /experts/{id}/away`, recorded as set by the expert. A refusal (a date in the past, an
 * unknown delegate) comes back as a sentence for the expert instead of an error.
 */
export async function awayFromChat(engine: Routing & Pick<Engine, 'store'>, expertId: string, away: AwayRequest | null): Promise<string | null> {
  const by = `expert:${expertId}`;
  try {
    if (away) await setAway(engine, expertId, { until: away.until, delegate_to: away.delegateTo, note: away.note }, by);
    else await endAway(engine, expertId, by);
    return null;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const details = error.details ?? [];
    return details.length > 0 ? `${error.message} ${details.map((d) => d.message).join('; ')}.` : error.message;
  }
}
