import { TransportError } from '../transport.js';

/** What the SDK's HTTP client (axios) hands back for a Bot Connector call that failed. */
interface ConnectorFailure {
  message?: string;
  code?: string;
  response?: { status?: number; data?: { error?: { code?: string; message?: string } }; headers?: Record<string, unknown> };
}

/** Why an ask cannot go out on Teams to someone who never installed the app (the audit row says what to do). */
export const NOT_INSTALLED = 'the expertq app is not installed for this person in Teams';

/**
 * A Bot Connector failure as the outbox understands it. The person cannot be reached for good when
 * the conversation is gone or the bot was removed from it (403 `BotNotInConversationRoster`, 404
 * `ConversationNotFound`): `teams_403`, `teams_404`, permanent. A refused bot token (401) is ours to
 * fix, not the person's: temporary, like throttling (429, after its Retry-After) and server errors.
 */
export function toTransportError(error: unknown): TransportError {
  if (error instanceof TransportError) return error;
  const e = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as ConnectorFailure;
  const status = e.response?.status;
  const detail = e.response?.data?.error?.code ?? e.response?.data?.error?.message ?? e.code ?? e.message ?? 'unknown error';
  const message = `Teams did not take the message: ${status ?? 'no answer'} ${detail}`;
  if (status === undefined) return new TransportError(message, 'teams_unreachable', false);
  const retryAfter = Number(e.response?.headers?.['retry-after']);
  return new TransportError(message, `teams_${status}`, status === 403 || status === 404, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined);
}
