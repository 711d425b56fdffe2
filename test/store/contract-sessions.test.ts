import { describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../src/store/store.js';
import { ENGINES } from './engines.js';
import { HOUR, T0 } from './records.js';
import { useEngine } from './use-engine.js';

const session = (id: string, overrides: Partial<SessionRecord> = {}): SessionRecord => ({
  id, name: 'rita@acme.test', role: 'reviewer', started_at: T0, expires_at: T0 + 12 * HOUR, last_seen: T0, ...overrides,
});

/** Signed-in sessions: recorded at sign-in, looked up on every cookie-authenticated request, ended by sign-out or revocation. */
describe.each(ENGINES)('$name store: sessions', (engine) => {
  const e = useEngine(engine);

  it('a started session is live until it expires; ending it ends it for another process on the same database too', async () => {
    const b = await e.another();
    await e.store.transaction((tx) => tx.sessions.start(session('s1')));
    expect(await b.sessions.live('s1', T0 + HOUR)).toEqual(session('s1'));
    expect(await b.sessions.live('s1', T0 + 12 * HOUR)).toBeUndefined();
    expect(await b.sessions.live('nope', T0)).toBeUndefined();

    expect(await b.transaction((tx) => tx.sessions.end('s1'))).toBe(true);
    expect(await e.store.sessions.live('s1', T0 + HOUR)).toBeUndefined();
    expect(await e.store.transaction((tx) => tx.sessions.end('s1'))).toBe(false);
  });

  it('the list holds the live sessions only, the earliest started first', async () => {
    await e.store.transaction(async (tx) => {
      await tx.sessions.start(session('late', { started_at: T0 + HOUR, expires_at: T0 + 13 * HOUR }));
      await tx.sessions.start(session('early', { name: 'ada@acme.test', role: 'admin' }));
      await tx.sessions.start(session('gone', { expires_at: T0 + 2 * HOUR }));
    });
    expect((await e.store.sessions.list(T0 + 3 * HOUR)).map((s) => [s.id, s.name, s.role])).toEqual([['early', 'ada@acme.test', 'admin'], ['late', 'rita@acme.test', 'reviewer']]);
  });

  it('revoking a person ends each of their live sessions and no one else’s; names compare exactly', async () => {
    await e.store.transaction(async (tx) => {
      await tx.sessions.start(session('r1'));
      await tx.sessions.start(session('r2', { started_at: T0 + HOUR }));
      await tx.sessions.start(session('r-old', { expires_at: T0 + HOUR }));
      await tx.sessions.start(session('a1', { name: 'ada@acme.test' }));
    });
    expect(await e.store.transaction((tx) => tx.sessions.endAllOf('Rita@acme.test', T0 + 2 * HOUR))).toBe(0);
    expect(await e.store.transaction((tx) => tx.sessions.endAllOf('rita@acme.test', T0 + 2 * HOUR))).toBe(2);
    expect((await e.store.sessions.list(T0 + 2 * HOUR)).map((s) => s.id)).toEqual(['a1']);
  });

  it('last seen moves only when the recorded one is older than the given instant; expired sessions are removed', async () => {
    await e.store.transaction(async (tx) => {
      await tx.sessions.start(session('s1'));
      await tx.sessions.start(session('s2', { expires_at: T0 + HOUR }));
    });
    await e.store.transaction((tx) => tx.sessions.seen('s1', T0 + 10 * 60_000, T0 + 5 * 60_000));
    await e.store.transaction((tx) => tx.sessions.seen('s1', T0 + 12 * 60_000, T0 + 7 * 60_000));
    expect((await e.store.sessions.live('s1', T0))?.last_seen).toBe(T0 + 10 * 60_000);

    expect(await e.store.sessions.anyExpired(T0 + HOUR - 1)).toBe(false);
    expect(await e.store.sessions.anyExpired(T0 + HOUR)).toBe(true);
    expect(await e.store.transaction((tx) => tx.sessions.removeExpired(T0 + HOUR))).toBe(1);
    expect(await e.store.sessions.anyExpired(T0 + HOUR)).toBe(false);
    expect(await e.store.transaction((tx) => tx.sessions.removeExpired(T0 + HOUR))).toBe(0);
    expect((await e.store.sessions.list(T0)).map((s) => s.id)).toEqual(['s1']);
  });
});
