import type { SessionRecord } from '../session-repository.js';

/** The statements of signed-in sessions, the same in both engines (`?` placeholders: `pgText`). */
const COLUMNS = 'id, name, role, started_at, expires_at, last_seen';

export const SESSIONS = {
  live: `SELECT ${COLUMNS} FROM sessions WHERE id = ? AND expires_at > ?`,
  list: `SELECT ${COLUMNS} FROM sessions WHERE expires_at > ? ORDER BY started_at, id`,
  anyExpired: 'SELECT 1 FROM sessions WHERE expires_at <= ? LIMIT 1',
  start: `INSERT INTO sessions (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`,
  end: 'DELETE FROM sessions WHERE id = ?',
  endAllOf: 'DELETE FROM sessions WHERE name = ? AND expires_at > ?',
  seen: 'UPDATE sessions SET last_seen = ? WHERE id = ? AND last_seen < ?',
  removeExpired: 'DELETE FROM sessions WHERE expires_at <= ?',
} as const;

/** A session's values in the order of `SESSIONS.start`. */
export const sessionValues = (s: SessionRecord) => [
  s.id,
  s.name,
  s.role,
  s.started_at,
  s.expires_at,
  s.last_seen,
];
