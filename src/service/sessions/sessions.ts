import { randomBytes } from 'node:crypto';
import { iso } from '../../clock.js';
import type { SessionRecord } from '../../store/store.js';
import type { Engine } from '../engine/index.js';

/**
 * How stale a session's `last_seen` may get before a request made with it records it again: one write
 * per session every few minutes, not one per request (the UI polls).
 */
export const SEEN_EVERY_MS = 5 * 60_000;

/** A person signed in, as the identity provider vouched for them. */
export interface SignedIn {
  name: string;
  role: SessionRecord['role'];
}

/** Records a sign-in that lasts until `expiresAt`: its id, which only the encrypted session cookie carries. */
export async function startSession(engine: Pick<Engine, 'store' | 'clock'>, who: SignedIn, expiresAt: number): Promise<string> {
  const now = engine.clock.now();
  // 192 random bits: the cookie is encrypted too, but an id must not be guessable on its own either.
  const id = randomBytes(24).toString('base64url');
  await engine.store.transaction((tx) => tx.sessions.start({ id, name: who.name, role: who.role, started_at: now, expires_at: expiresAt, last_seen: now }));
  return id;
}

/**
 * Whether a session is live: read from the database on every request that carries it (a lookup by
 * its key), never from a copy in this process, so a sign-out or revocation on any instance is seen by
 * every instance at once. Notes the request in `last_seen` when that is older than `SEEN_EVERY_MS`; a
 * failure to note it is logged and does not refuse the request.
 */
export async function isSessionLive(engine: Pick<Engine, 'store' | 'clock' | 'log'>, id: string): Promise<boolean> {
  const now = engine.clock.now();
  const session = await engine.store.sessions.live(id, now);
  if (!session) return false;
  if (now - session.last_seen >= SEEN_EVERY_MS) {
    await engine.store.transaction((tx) => tx.sessions.seen(id, now, now - SEEN_EVERY_MS))
      .catch((err: unknown) => engine.log.warn({ err }, 'could not note when a session was last used'));
  }
  return true;
}

/** Ends one session (sign-out); whether it was live. */
export function endSession(store: Engine['store'], id: string): Promise<boolean> {
  return store.transaction((tx) => tx.sessions.end(id));
}

/** `GET /sessions`: every live session, the earliest started first. */
export async function listSessions(engine: Pick<Engine, 'store' | 'clock'>) {
  const rows = await engine.store.sessions.list(engine.clock.now());
  return rows.map((s) => ({ name: s.name, role: s.role, started_at: iso(s.started_at), expires_at: iso(s.expires_at), last_seen: iso(s.last_seen) }));
}

/** `DELETE /sessions?name=`: ends every live session of one person; how many. */
export function revokeSessions(engine: Pick<Engine, 'store' | 'clock'>, name: string): Promise<number> {
  const now = engine.clock.now();
  return engine.store.transaction((tx) => tx.sessions.endAllOf(name, now));
}
