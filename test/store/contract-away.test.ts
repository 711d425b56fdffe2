import { describe, expect, it } from 'vitest';
import type { AwayState } from '../../src/domain/records.js';
import { ENGINES } from './engines.js';
import { DAY, HOUR, T0 } from './records.js';
import { useEngine } from './use-engine.js';

const spell = (until: number, over: Partial<AwayState> = {}): AwayState => ({
  until,
  delegate_to: 'bob',
  note: 'Holiday',
  set_by: 'reviewer:admin',
  set_at: T0,
  ...over,
});

describe.each(ENGINES)('$name store: away spells', (engine) => {
  const e = useEngine(engine);

  it('keeps an away spell beside the mute, lists it, and clears it', async () => {
    await e.store.transaction(async (tx) => {
      await tx.asks.setMuted('carol', true, T0);
      await tx.asks.setAway('carol', spell(T0 + DAY), T0);
      await tx.asks.setAway('dana', spell(T0 + 2 * DAY, { delegate_to: null, note: null }), T0);
    });
    expect(await e.store.asks.aways(['carol', 'nobody'])).toEqual(new Map([['carol', spell(T0 + DAY)]]));
    expect(await e.store.asks.aways(null)).toEqual(
      new Map([['carol', spell(T0 + DAY)], ['dana', spell(T0 + 2 * DAY, { delegate_to: null, note: null })]]),
    );
    // The mute is untouched by away, and the other way round.
    expect(await e.store.asks.isMuted('carol')).toBe(true);
    await e.store.transaction((tx) => tx.asks.setMuted('carol', false, T0 + 1));
    expect((await e.store.asks.aways(['carol'])).get('carol')).toEqual(spell(T0 + DAY));

    await e.store.transaction((tx) => tx.asks.setAway('carol', null, T0 + 2));
    expect(await e.store.asks.aways(null)).toEqual(new Map([['dana', spell(T0 + 2 * DAY, { delegate_to: null, note: null })]]));
  });

  it('lists spells due to end and ends each once, and not one set again since', async () => {
    await e.store.transaction(async (tx) => {
      await tx.asks.setAway('carol', spell(T0 + HOUR), T0);
      await tx.asks.setAway('dana', spell(T0 + 3 * HOUR), T0);
    });
    expect(await e.store.asks.dueAways(T0 + 2 * HOUR)).toEqual([{ expert_id: 'carol', until: T0 + HOUR }]);
    const other = await e.another();
    expect(await e.store.transaction((tx) => tx.asks.endAway('carol', T0 + HOUR, T0 + 2 * HOUR))).toBe(true);
    expect(await other.transaction((tx) => tx.asks.endAway('carol', T0 + HOUR, T0 + 2 * HOUR))).toBe(false);
    // Set again for longer before the scheduler got to the old end: the old end no longer applies.
    await e.store.transaction((tx) => tx.asks.setAway('dana', spell(T0 + 5 * HOUR), T0 + HOUR));
    expect(await e.store.transaction((tx) => tx.asks.endAway('dana', T0 + 3 * HOUR, T0 + 3 * HOUR))).toBe(false);
    expect(await e.store.asks.dueAways(T0 + 4 * HOUR)).toEqual([]);
    expect([...(await e.store.asks.aways(null)).keys()]).toEqual(['dana']);
  });

  it('an expert’s live state carries their whole spell (note, who set it, when), also when it changes inside the transaction that read it', async () => {
    const awayOf = async (reads: Pick<typeof e.store, 'asks'>) => (await reads.asks.expertStates(['carol', 'dana'], T0)).get('carol')?.away ?? null;
    expect(await awayOf(e.store)).toBeNull();
    const seen = await e.store.transaction(async (tx) => {
      const before = await awayOf(tx);
      await tx.asks.setAway('carol', spell(T0 + DAY), T0);
      const during = await awayOf(tx);
      await tx.asks.endAway('carol', T0 + DAY, T0 + 1);
      return [before, during, await awayOf(tx)];
    });
    expect(seen).toEqual([null, spell(T0 + DAY), null]);
    await e.store.transaction((tx) => tx.asks.setAway('carol', spell(T0 + DAY, { delegate_to: null }), T0));
    expect(await awayOf(e.store)).toEqual(spell(T0 + DAY, { delegate_to: null }));
    expect((await e.store.asks.expertStates(['dana'], T0)).get('dana')).toEqual({ muted: false, openAsks: 0, queuedAsks: 0, asksToday: 0, away: null });
    // Read for every expert at once (the Experts page, metrics), with a mute beside the spell.
    await e.store.transaction(async (tx) => {
      await tx.asks.setMuted('carol', true, T0 + 2);
      await tx.asks.setAway('dana', spell(T0 + 2 * DAY), T0 + 2);
    });
    const every = await e.store.asks.expertStates(null, T0);
    expect([every.get('carol'), every.get('dana')]).toEqual([
      { muted: true, openAsks: 0, queuedAsks: 0, asksToday: 0, away: spell(T0 + DAY, { delegate_to: null }) },
      { muted: false, openAsks: 0, queuedAsks: 0, asksToday: 0, away: spell(T0 + 2 * DAY) },
    ]);
  });
});
