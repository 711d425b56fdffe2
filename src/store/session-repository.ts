/**
 * A person signed in through the identity provider: one row per sign-in, so that signing out (or an
 * administrator revoking it) ends it for every instance sharing the database. The session cookie
 * carries the id; the row says whether it is still live.
 */
export interface SessionRecord {
  /** Random, unguessable; only ever sent inside the encrypted session cookie. */
  id: string;
  /** The name the provider vouched for (`name_claim`). */
  name: string;
  /** The role the person's groups granted at sign-in. */
  role: 'none' | 'reviewer' | 'admin';
  started_at: number;
  expires_at: number;
  /** The last request made with it, to within a few minutes (refreshed at most that often). */
  last_seen: number;
}

export interface SessionReads {
  /** The session with this id while it is live at `now`: undefined once ended, revoked or expired. */
  live(id: string, now: number): Promise<SessionRecord | undefined>;
  /** Every session live at `now`, the earliest started first. */
  list(now: number): Promise<SessionRecord[]>;
  /** Whether any session has expired by `now` (and waits to be removed). */
  anyExpired(now: number): Promise<boolean>;
}

export interface SessionRepository extends SessionReads {
  start(session: SessionRecord): Promise<void>;
  /** Ends one session; whether it was there. */
  end(id: string): Promise<boolean>;
  /** Ends every session of one person (names compare exactly) live at `now`; how many. */
  endAllOf(name: string, now: number): Promise<number>;
  /** Records a request made with the session at `at`, unless one was recorded since `since`. */
  seen(id: string, at: number, since: number): Promise<void>;
  /** Removes the sessions expired by `now`; how many. */
  removeExpired(now: number): Promise<number>;
}
