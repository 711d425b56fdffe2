import type { MessageRecord } from '../../domain/records.js';
import { json } from '../row-records.js';
import type { MessageLease } from '../store.js';

/**
 * The statements of the messages outbox the same in both engines (`?` placeholders: `pgText`).
 * Claiming, rescheduling, marking sent and renewing differ: SQLite pins the due index, PostgreSQL
 * locks what it claims (SKIP LOCKED), and each passes lists its own way.
 */
export const MESSAGE_COLUMNS = `id, expert_id, request_id, ask_id, proposal_id, purpose, channel, text, elements, state, attempts,
  next_attempt_at, created_at, sent_at, last_error`;

export const MESSAGES = {
  enqueue: `INSERT INTO messages (id, expert_id, request_id, ask_id, proposal_id, purpose, channel, text, elements, state,
      attempts, next_attempt_at, created_at, claimed_by, lease_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  listFor: `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE request_id = ? ORDER BY created_at, id`,
  askElements: `SELECT elements FROM messages WHERE ask_id = ? AND purpose = 'ask' ORDER BY created_at DESC, id DESC LIMIT 1`,
  drop: `UPDATE messages SET state = 'dropped', last_error = ?, claimed_by = NULL, lease_until = NULL
      WHERE id = ? AND state = 'pending'`,
} as const;

/** The values of `MESSAGES.enqueue`, in its order; `text`: the text column as this engine keeps it. */
export const messageValues = (m: MessageRecord, text: string, lease: MessageLease | undefined) => [
  m.id,
  m.expert_id,
  m.request_id,
  m.ask_id,
  m.proposal_id ?? null,
  m.purpose,
  m.channel ?? null,
  text,
  m.elements === null ? null : json(m.elements),
  m.state,
  m.attempts,
  m.next_attempt_at,
  m.created_at,
  lease?.owner ?? null,
  lease?.leaseUntil ?? null,
];
