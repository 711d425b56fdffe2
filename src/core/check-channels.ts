import type { ExpertEntry } from '../config/expert-schema.js';
import { addressOn, channelsOf, type ChannelName, type ExpertChannel } from '../domain/channels.js';

/** Which channels the service has: configured in the file, and running in this process. */
export interface ChannelPlan {
  /** Channels whose section the configuration file has (`chat:` is Slack, `teams:`, `email:`). */
  configured: ReadonlySet<ExpertChannel>;
  /** Channels this process runs: the configured ones, or the console alone. */
  running: ReadonlySet<ChannelName>;
}

export interface ChannelProblems {
  /** A `channels` entry naming a channel the service has not configured: refused by `PUT /experts`, warned at start. */
  unconfigured: Array<{ path: string; message: string }>;
  /** Experts no running channel reaches: they are never asked (a warning wherever the registry is set). */
  unreachable: string[];
}

/** The channels a configuration sets up: `chat:` (Slack), `teams:` and `email:`. */
export function configuredChannels(config: { chat?: object | null; teams?: object | null; email?: object | null }): Set<ExpertChannel> {
  const configured = new Set<ExpertChannel>();
  if (config.chat) configured.add('slack');
  if (config.teams) configured.add('teams');
  if (config.email) configured.add('email');
  return configured;
}

/** The registry's channel rules, against the channels the service has. */
export function checkChannels(entries: readonly ExpertEntry[], plan: ChannelPlan): ChannelProblems {
  const problems: ChannelProblems = { unconfigured: [], unreachable: [] };
  entries.forEach((entry, i) => {
    entry.channels?.forEach((channel, j) => {
      if (!plan.configured.has(channel)) {
        problems.unconfigured.push({ path: `experts.${i}.channels.${j}`, message: `"${channel}" is not a channel this service has (configure the ${sectionOf(channel)} section)` });
      }
    });
    const addresses = { id: entry.id, slack: entry.slack ?? null, email: entry.email ?? null, teams: entry.teams ?? null, channels: entry.channels ?? null };
    if (channelsOf(addresses, plan.running).length === 0) {
      const has = (['slack', 'teams', 'email'] as const).filter((c) => addressOn(addresses, c) !== null);
      problems.unreachable.push(
        `expert "${entry.id}" can be reached on no running channel (running: ${[...plan.running].join(', ') || 'none'}; the expert has ${has.length > 0 ? `an address on ${has.join(', ')}` : 'no address'}${entry.channels ? ` and prefers ${entry.channels.join(', ')}` : ''}): they are never asked`,
      );
    }
  });
  return problems;
}

function sectionOf(channel: ExpertChannel): string {
  return channel === 'slack' ? 'chat:' : `${channel}:`;
}
