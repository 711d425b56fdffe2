import type { InboundReply } from '../transport.js';
import { readSlackText } from './slack-text.js';

/** The fields of a Slack `message` event that decide whether it is an expert's reply. */
export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  channel_type?: string;
  channel?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
}

/**
 * A `message` event as an expert's reply, or null when it is not one: only plain messages
 * (no subtype: edits, deletions and joins are not replies) in a DM with the bot, from a person (not the
 * bot itself, not another bot). A message in a thread names the thread; the text is the expert's own,
 * with Slack's escaping and link markup undone.
 */
export function readMessageEvent(event: SlackMessageEvent, eventId: string | undefined): InboundReply | null {
  if (event.type !== 'message' || event.subtype !== undefined || event.channel_type !== 'im') return null;
  if (event.bot_id !== undefined || !event.user || !event.channel || typeof event.text !== 'string') return null;
  const text = readSlackText(event.text).trim();
  if (text === '') return null;
  const inThread = event.thread_ts !== undefined && event.thread_ts !== event.ts;
  return {
    expertId: event.user,
    text,
    ...(inThread ? { thread: { channel: event.channel, ts: event.thread_ts! } } : {}),
    ...(eventId !== undefined ? { eventId } : {}),
  };
}
