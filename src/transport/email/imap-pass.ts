import type { ImapFlow } from 'imapflow';
import type { Logger } from 'pino';

/** What one pass over the inbox did. */
export interface PassResult {
  processed: number;
  /** Messages whose handler threw: left unseen in the inbox for the next pass. */
  failed: number;
}

/**
 * One pass over the open mailbox (INBOX): every message in it, oldest first, is handed to `onMessage`
 * as its raw source, and only once that resolved is it flagged `\Seen` and moved to `folder`. What
 * is still in the inbox is not handled yet, read or not: a message someone opened, or one flagged just
 * before a crash cut the move short, is taken on the next pass (at least once: the handler's caller
 * dedupes by Message-ID). A handler that throws leaves its message where it was, untouched, so the next
 * pass offers it again. Fetching with BODY.PEEK (imapflow's `source`) never sets `\Seen` by itself.
 * `stopping()` is checked between messages, so a stop waits for at most the message in hand.
 */
export async function processInbox(
  client: ImapFlow,
  folder: string,
  onMessage: (raw: Buffer) => Promise<void>,
  log: Logger,
  stopping: () => boolean,
): Promise<PassResult> {
  const result: PassResult = { processed: 0, failed: 0 };
  const found = await client.search({ all: true }, { uid: true });
  if (!found) throw new Error('the IMAP server refused to search the inbox');
  // UIDs grow with arrival, so ascending UIDs are oldest first.
  const uids = [...found].sort((a, b) => a - b);
  for (const uid of uids) {
    if (stopping()) break;
    const message = await client.fetchOne(String(uid), { source: true }, { uid: true });
    // Gone since the search (another reader moved it): nothing to do.
    if (!message || !message.source) continue;
    try {
      await onMessage(message.source);
    } catch (error) {
      result.failed += 1;
      log.warn({ uid, err: error }, 'email: handling a message from the IMAP inbox failed; it stays in the inbox and is retried');
      continue;
    }
    await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
    await client.messageMove(String(uid), folder, { uid: true });
    result.processed += 1;
  }
  return result;
}
