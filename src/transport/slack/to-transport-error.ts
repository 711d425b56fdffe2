import { ErrorCode } from '@slack/web-api';
import { TransportError } from '../transport.js';

/** Slack errors that mean this expert cannot be reached at all: the ask is passed on (as a `skip`). */
const UNREACHABLE = new Set(['user_not_found', 'users_not_found', 'account_inactive', 'cannot_dm_bot', 'user_disabled']);

/**
 * Slack errors that mean the bot cannot post in the channel: it is not a member, or cannot see the
 * channel at all. Trying again changes nothing until someone invites the bot or fixes the id, so the
 * message is not retried.
 */
const CHANNEL_REFUSED = new Set(['not_in_channel', 'channel_not_found']);

/** Where a message was going, so a channel refusal can say what to fix. */
export interface SendTarget {
  channel: string | null;
  /** The channel is `chat.review_channel`. */
  review: boolean;
}

/** Maps a Web API failure to a retryable or permanent TransportError (the outbox decides what follows). */
export function toTransportError(error: unknown, target?: SendTarget): TransportError {
  if (error instanceof TransportError) return error;
  const e = error as { code?: string; data?: { error?: string }; retryAfter?: number; statusCode?: number; message?: string };
  if (e.code === ErrorCode.PlatformError) {
    const code = e.data?.error ?? 'unknown_error';
    if (CHANNEL_REFUSED.has(code)) return new TransportError(channelRefusal(code, target), code, true);
    return new TransportError(`Slack refused the call: ${code}`, code, UNREACHABLE.has(code));
  }
  if (e.code === ErrorCode.RateLimitedError) {
    return new TransportError(`Slack rate limit: retry after ${e.retryAfter ?? 1} s`, 'ratelimited', false, (e.retryAfter ?? 1) * 1000);
  }
  if (e.code === ErrorCode.HTTPError) return new TransportError(`Slack answered HTTP ${e.statusCode}`, `http_${e.statusCode}`, false);
  return new TransportError(`Slack could not be reached: ${e.message ?? String(error)}`, 'request_error', false);
}

/** What a channel refusal means and how to fix it, in the words the log shows an operator. */
function channelRefusal(code: string, target: SendTarget | undefined): string {
  const head = `Slack refused the call: ${code}, not retried.`;
  const channel = target?.channel ?? 'the channel';
  if (target?.review) {
    return code === 'not_in_channel'
      ? `${head} The bot is not a member of the review channel ${channel} (chat.review_channel): invite it there with /invite @<app name>.`
      : `${head} The review channel ${channel} (chat.review_channel) was not found: check chat.review_channel, and for a private channel invite the bot with /invite @<app name>.`;
  }
  return code === 'not_in_channel'
    ? `${head} The bot is not a member of ${channel}: invite it there with /invite @<app name>.`
    : `${head} Slack shows the bot no channel ${channel}: it was deleted, or the bot cannot see it.`;
}
