/**
 * The statements of asks' places in a chat platform, the same in both engines (`?` placeholders:
 * `pgText`). Recording a place or an event differs (SQLite's INSERT OR REPLACE / OR IGNORE), and so do
 * the places of many asks at once (PostgreSQL reads them in one statement).
 */
export const CHAT = {
  ref: 'SELECT channel, ts, thread_ts FROM chat_asks WHERE ask_id = ?',
  // The values: the channel, then the message's ts twice (its own post, or a reply in its thread).
  askByRef: `SELECT asks.* FROM chat_asks JOIN asks ON asks.id = chat_asks.ask_id
      WHERE chat_asks.channel = ? AND (chat_asks.ts = ? OR chat_asks.thread_ts = ?)
      ORDER BY asks.created_at DESC, asks.id DESC LIMIT 1`,
  eventSeen: 'SELECT 1 AS seen FROM chat_events WHERE id = ?',
} as const;
