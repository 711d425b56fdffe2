/**
 * The channels an expert can be asked on. `console` is the development transport: when it runs it is
 * the only channel and reaches everyone. The others reach an expert at an address of their own.
 */
export const EXPERT_CHANNELS = ['slack', 'teams', 'email'] as const;
export type ExpertChannel = (typeof EXPERT_CHANNELS)[number];
export type ChannelName = ExpertChannel | 'console';

/** What an expert entry says about where they can be reached. */
export interface ExpertAddresses {
  id: string;
  slack: string | null;
  email: string | null;
  teams: string | null;
  /** The expert's order of preference, as configured; null: every channel they have an address on. */
  channels: readonly ExpertChannel[] | null;
}

/** A Slack user id (`U…` or `W…`): an expert id of this shape is their Slack address when `slack` is unset. */
export const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;

/** The expert's address on a channel, or null when they have none there. */
export function addressOn(expert: ExpertAddresses, channel: ExpertChannel): string | null {
  if (channel === 'slack') return expert.slack ?? (SLACK_USER_ID.test(expert.id) ? expert.id : null);
  return channel === 'email' ? expert.email : expert.teams;
}

/**
 * The channels an expert is asked on, in order: their `channels` when set, else every channel they have
 * an address on (slack, teams, email), keeping only the channels that `running` holds and the expert
 * has an address on. With the console running, the console alone.
 */
export function channelsOf(expert: ExpertAddresses, running: ReadonlySet<ChannelName>): ChannelName[] {
  if (running.has('console')) return ['console'];
  const preferred = expert.channels ?? EXPERT_CHANNELS;
  return preferred.filter((c) => running.has(c) && addressOn(expert, c) !== null);
}

/** The channel a stored place (an ask's message) is on: email and Teams places say so, Slack's are its channel ids. */
export function refChannel(ref: { channel: string }): ExpertChannel {
  return ref.channel === 'email' || ref.channel === 'teams' ? ref.channel : 'slack';
}
