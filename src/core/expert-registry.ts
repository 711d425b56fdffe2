import type { ExpertEntry } from '../config/expert-schema.js';
import { addressOn, channelsOf, type ChannelName, type ExpertAddresses, type ExpertChannel } from '../domain/channels.js';
import { normalizeTopic, topicTokens } from './normalize-topic.js';
import { parseWorkingHours, type WorkingHours } from './working-hours.js';

export interface RegisteredExpert extends ExpertAddresses {
  id: string;
  name: string;
  /** Addresses on each channel, as configured (null: none), and the order of preference (null: the default). */
  slack: string | null;
  email: string | null;
  teams: string | null;
  channels: readonly ExpertChannel[] | null;
  /** Where a question to the expert goes, in order: their preferred channels this service runs. Empty: never asked. */
  reach: ChannelName[];
  /** Topics as configured, for display and for rewriting the file. */
  topics: string[];
  escalation_to: string | null;
  /** The expert's own IANA time zone; null: the organisation's. */
  timezone: string | null;
  /** Working hours as written (for the file) and parsed (for deciding); null: any time. */
  working_hours: string | null;
  workingHours: WorkingHours | null;
  /** Caps overriding the policy's per-expert caps for this expert; null: the policy's. */
  max_open_asks: number | null;
  max_asks_per_day: number | null;
  /** Position in the registry: the last tie-break. */
  order: number;
  normalizedTopics: string[];
  topicTokens: Set<string>[];
}

/**
 * The expert registry from configuration, indexed for routing. Immutable: `PUT /experts` builds a
 * new one and swaps it in, so a routing decision never sees half an update. An expert no running
 * channel reaches is listed but never a candidate (`running`: the channels this process runs; by
 * default the console, which reaches everyone).
 */
export class ExpertRegistry {
  readonly experts: readonly RegisteredExpert[];
  private readonly byId: Map<string, RegisteredExpert>;
  private readonly byTopic: Map<string, RegisteredExpert[]>;
  private readonly byToken: Map<string, RegisteredExpert[]>;
  private readonly byAddress = new Map<string, RegisteredExpert>();

  constructor(entries: readonly ExpertEntry[], running: ReadonlySet<ChannelName> = CONSOLE) {
    this.experts = entries.map((e, order) => {
      const normalizedTopics = [...new Set(e.topics.map(normalizeTopic))];
      const expert: RegisteredExpert = {
        id: e.id,
        name: e.name,
        slack: e.slack ?? null,
        email: e.email ?? null,
        teams: e.teams ?? null,
        channels: e.channels ?? null,
        topics: [...e.topics],
        escalation_to: e.escalation_to ?? null,
        timezone: e.timezone ?? null,
        working_hours: e.working_hours ?? null,
        workingHours: e.working_hours === undefined ? null : parseWorkingHours(e.working_hours),
        max_open_asks: e.max_open_asks ?? null,
        max_asks_per_day: e.max_asks_per_day ?? null,
        order,
        normalizedTopics,
        topicTokens: normalizedTopics.map(topicTokens),
        reach: [],
      };
      expert.reach = channelsOf(expert, running);
      return expert;
    });
    this.byId = new Map(this.experts.map((e) => [e.id, e]));
    this.byTopic = new Map();
    this.byToken = new Map();
    for (const expert of this.experts) {
      for (const channel of ['slack', 'teams', 'email'] as const) {
        const address = addressOn(expert, channel);
        if (address !== null) this.byAddress.set(`${channel} ${channel === 'email' ? address.toLowerCase() : address}`, expert);
      }
      if (expert.reach.length === 0) continue;
      for (const topic of expert.normalizedTopics) push(this.byTopic, topic, expert);
      for (const token of new Set(expert.topicTokens.flatMap((t) => [...t]))) push(this.byToken, token, expert);
    }
  }

  /** Experts with at least one topic token in common: the only ones a fuzzy match can score above 0. */
  sharingTokens(tokens: ReadonlySet<string>): RegisteredExpert[] {
    const found = new Set<RegisteredExpert>();
    for (const token of tokens) for (const expert of this.byToken.get(token) ?? []) found.add(expert);
    return [...found].sort((a, b) => a.order - b.order);
  }

  /** The expert at an address on a channel (an email address in any case), or undefined. */
  at(channel: ExpertChannel, address: string): RegisteredExpert | undefined {
    return this.byAddress.get(`${channel} ${channel === 'email' ? address.toLowerCase() : address}`);
  }

  /** Whether the expert can be asked on some running channel (an unknown id: no). */
  reachable(id: string): boolean {
    return (this.byId.get(id)?.reach.length ?? 0) > 0;
  }

  get(id: string): RegisteredExpert | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  withTopic(normalizedTopic: string): readonly RegisteredExpert[] {
    return this.byTopic.get(normalizedTopic) ?? [];
  }

  /** The registry as entries: what `PUT /experts` took, optional fields only where set. */
  toEntries(): ExpertEntry[] {
    return this.experts.map(entryOf);
  }
}

const CONSOLE: ReadonlySet<ChannelName> = new Set(['console']);

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** One registered expert as a registry entry: what `PUT /experts` takes, optional fields only where set. */
export function entryOf(e: RegisteredExpert): ExpertEntry {
  return {
    id: e.id,
    name: e.name,
    topics: e.topics,
    escalation_to: e.escalation_to,
    ...(e.slack !== null ? { slack: e.slack } : {}),
    ...(e.email !== null ? { email: e.email } : {}),
    ...(e.teams !== null ? { teams: e.teams } : {}),
    ...(e.channels !== null ? { channels: [...e.channels] } : {}),
    ...(e.timezone !== null ? { timezone: e.timezone } : {}),
    ...(e.working_hours !== null ? { working_hours: e.working_hours } : {}),
    ...(e.max_open_asks !== null ? { max_open_asks: e.max_open_asks } : {}),
    ...(e.max_asks_per_day !== null ? { max_asks_per_day: e.max_asks_per_day } : {}),
  };
}
