import type { AskRecord } from '../../domain/records.js';

/**
 * The statements of asks and experts' mute and away, the same in both engines (`?` placeholders:
 * `pgText`). Where the engines differ each keeps its own: the scheduler's due-work reads (SQLite pins
 * their index with INDEXED BY), lists of ids, experts' live state and PostgreSQL's locks.
 */
export const WAITING_ASKS = 'SELECT a.*, r.created_at AS request_created_at FROM asks a JOIN requests r ON r.id = a.request_id';

export const ASKS = {
  insert: `INSERT INTO asks (id, request_id, expert_id, state, via, created_at, sent_at, escalate_at, closed_at, send_after, instructions, channel)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  get: 'SELECT * FROM asks WHERE id = ?',
  listFor: 'SELECT * FROM asks WHERE request_id = ? ORDER BY created_at, id',
  askOnRequest: `SELECT * FROM asks WHERE expert_id = ? AND request_id = ?
      ORDER BY CASE state WHEN 'open' THEN 0 WHEN 'escalated' THEN 1 ELSE 2 END, created_at DESC LIMIT 1`,
  oldestOpenAsk: `SELECT * FROM asks WHERE expert_id = ? AND state = 'open' ORDER BY sent_at, id LIMIT 1`,
  openOf: `SELECT * FROM asks WHERE expert_id = ? AND state = 'open' ORDER BY sent_at, id`,
  setMuted: `INSERT INTO expert_state (expert_id, muted, updated_at) VALUES (?, ?, ?)
      ON CONFLICT (expert_id) DO UPDATE SET muted = excluded.muted, updated_at = excluded.updated_at`,
  muted: 'SELECT muted FROM expert_state WHERE expert_id = ?',
  allAway: 'SELECT * FROM expert_state WHERE away_until IS NOT NULL',
  dueAways: 'SELECT expert_id, away_until FROM expert_state WHERE away_until IS NOT NULL AND away_until <= ? ORDER BY away_until, expert_id',
  setAway: `INSERT INTO expert_state (expert_id, muted, updated_at, away_until, away_delegate, away_note, away_set_by, away_set_at)
      VALUES (?, 0, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (expert_id) DO UPDATE SET updated_at = excluded.updated_at, away_until = excluded.away_until,
        away_delegate = excluded.away_delegate, away_note = excluded.away_note, away_set_by = excluded.away_set_by, away_set_at = excluded.away_set_at`,
  // Two instances ending the same spell (PostgreSQL): the second waits for the first's row lock, then finds it cleared.
  endAway: `UPDATE expert_state SET away_until = NULL, away_delegate = NULL, away_note = NULL, away_set_by = NULL, away_set_at = NULL, updated_at = ?
      WHERE expert_id = ? AND away_until = ?`,
  // Asks of a request whose question is still being drafted are not waiting work yet (the draft's end places them).
  queuedAll: `${WAITING_ASKS} WHERE a.state = 'queued' AND r.drafting = 0`,
  queuedOf: `${WAITING_ASKS} WHERE a.expert_id = ? AND a.state = 'queued' AND r.drafting = 0`,
} as const;

/** The values of `ASKS.insert`, in its order. */
export const askValues = (ask: AskRecord) => [
  ask.id,
  ask.request_id,
  ask.expert_id,
  ask.state,
  ask.via,
  ask.created_at,
  ask.sent_at,
  ask.escalate_at,
  ask.closed_at,
  ask.send_after,
  ask.instructions ?? null,
  ask.channel ?? null,
];
