/**
 * Statements of the small tables, the same in both engines (`?` placeholders: `pgText`). Where the
 * engines differ (an instance's storage generation, kept only by PostgreSQL) each keeps its own.
 */
export const SERVICE_STATE = {
  get: 'SELECT value FROM service_state WHERE key = ?',
  set: 'INSERT INTO service_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  setIfAbsent: 'INSERT INTO service_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING',
} as const;

export const INSTANCES = {
  remove: 'DELETE FROM instances WHERE id = ?',
  removeUnseen: 'DELETE FROM instances WHERE last_seen < ?',
} as const;
