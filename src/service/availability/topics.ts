import { closestTopics } from '../../core/closest-topics.js';
import { isCapped } from '../../core/route-request.js';
import { inForce } from './away-state.js';
import { liveStates, type Engine, type Attendance, type Roster } from '../engine/index.js';
import { expertAvailability } from './expert-availability.js';

export interface TopicView {
  topic: string;
  /** Experts who list the topic. */
  experts: number;
  /** Of those, how many could be asked this minute under the default limits (not muted, not away, not at a limit, inside their working hours, not quiet hours). */
  available_now: number;
  /** The expert asked when nobody else matches, if the topic has one. */
  fallback: string | null;
}

/** Every topic a request can be routed by: the experts' topics and the topics with a fallback expert. */
export function knownTopics(engine: Roster): string[] {
  const topics = new Set<string>();
  for (const expert of engine.experts.experts) for (const t of expert.normalizedTopics) topics.add(t);
  for (const t of Object.keys(engine.config.topics)) topics.add(t);
  return [...topics].sort();
}

/** The topics with how many experts take each and how many could be asked now. */
export async function listTopics(engine: Attendance & Pick<Engine, 'store'>, now: number): Promise<TopicView[]> {
  // One read: each expert's live state carries their away spell.
  const states = await liveStates(engine, engine.store, null, now);
  const { defaults } = engine.config;
  return knownTopics(engine).map((topic) => {
    const experts = engine.experts.withTopic(topic);
    const available = experts.filter((e) => {
      const s = states.get(e.id);
      if (s && (inForce(s.away, now) || s.muted || isCapped(s, defaults, e))) return false;
      return expertAvailability(engine, e, defaults.quiet_hours, now).available;
    }).length;
    return { topic, experts: experts.length, available_now: available, fallback: engine.config.topics[topic]?.fallback ?? null };
  });
}

/** The sentence ending a `no_expert_found` message: the nearest topics someone does handle. */
export function suggestTopics(engine: Roster, topic: string): string {
  const near = closestTopics(topic, knownTopics(engine));
  return near.length > 0 ? ` Closest known topics: ${near.map((t) => `"${t}"`).join(', ')}.` : ' No known topic is close; list them with GET /api/v1/topics.';
}
