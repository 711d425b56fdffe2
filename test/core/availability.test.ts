import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { availability, type AvailabilityRules } from '../../src/core/availability.js';
import { parseWorkingHours } from '../../src/core/working-hours.js';

const at = (iso: string) => Date.parse(iso);
const MINUTE = 60_000;
const NIGHT: [string, string] = ['22:00', '07:00'];

/** Rules for an expert: working hours in their zone, the org's quiet hours in the org's zone. */
function rules(zone: string, hours: string | null, org: { zone?: string; quiet?: [string, string] | null } = {}, extra: Partial<AvailabilityRules> = {}): AvailabilityRules {
  return {
    timeZone: zone,
    workingHours: hours === null ? null : parseWorkingHours(hours),
    orgTimeZone: org.zone ?? zone,
    quietHours: org.quiet ?? null,
    ...extra,
  };
}

/** The answer with `until` as an ISO string, so a failing row reads as wall-clock facts. */
function answer(nowIso: string, r: AvailabilityRules): string {
  const a = availability(at(nowIso), r);
  if (a.available) return 'available';
  return `${a.why} until ${a.until === null ? 'never' : new Date(a.until).toISOString()}`;
}

describe('availability', () => {
  const berlin = rules('Europe/Berlin', 'Mon-Fri 09:00-17:30');
  // 2026-11-23 is a Monday; Berlin is at +01:00 in November.
  it.each([
    ['inside the working day', '2026-11-25T09:00:00Z', 'available'],
    ['the first minute of the day', '2026-11-25T08:00:00Z', 'available'],
    ['the end of the day is outside it', '2026-11-25T16:30:00Z', 'working_hours until 2026-11-26T08:00:00.000Z'],
    ['the evening waits for the next morning', '2026-11-25T17:00:00Z', 'working_hours until 2026-11-26T08:00:00.000Z'],
    ['Friday evening waits for Monday', '2026-11-27T17:00:00Z', 'working_hours until 2026-11-30T08:00:00.000Z'],
    ['Sunday waits for Monday', '2026-11-29T12:00:00Z', 'working_hours until 2026-11-30T08:00:00.000Z'],
  ])('Berlin office hours: %s', (_, now, expected) => {
    expect(answer(now, berlin)).toBe(expected);
  });

  it.each([
    // 2026-03-29 (Sunday): 02:00 CET jumps to 03:00 CEST at 01:00Z.
    ['a range starting in the skipped hour starts when the clock jumps', 'Europe/Berlin', 'Sun 02:30-04:00', '2026-03-29T00:30:00Z', 'working_hours until 2026-03-29T01:00:00.000Z'],
    ['a night shift over the jump lasts an hour less', 'Europe/Berlin', 'Sat 22:00-06:00', '2026-03-29T03:59:00Z', 'available'],
    ['a night shift over the jump ends at 06:00 summer time', 'Europe/Berlin', 'Sat 22:00-06:00', '2026-03-29T04:00:00Z', 'working_hours until 2026-04-04T20:00:00.000Z'],
    // 2026-10-25 (Sunday): 03:00 CEST goes back to 02:00 CET at 01:00Z; 02:00-03:00 shows twice.
    ['a range ending in the repeated hour runs to its second showing', 'Europe/Berlin', 'Sun 01:00-02:30', '2026-10-25T01:15:00Z', 'available'],
    ['… and ends there', 'Europe/Berlin', 'Sun 01:00-02:30', '2026-10-25T01:30:00Z', 'working_hours until 2026-11-01T00:00:00.000Z'],
    ['a range starting in the repeated hour starts at its first showing', 'Europe/Berlin', 'Sun 02:15-09:00', '2026-10-25T00:15:00Z', 'available'],
    // New York: EST -05:00 in November; EDT -04:00 from 2026-03-08 while Europe is still on winter time.
    ['New York office hours in November', 'America/New_York', 'Mon-Fri 09:00-17:00', '2026-11-23T13:59:00Z', 'working_hours until 2026-11-23T14:00:00.000Z'],
    ['New York office hours the day after the spring change', 'America/New_York', 'Mon-Fri 09:00-17:00', '2026-03-09T12:30:00Z', 'working_hours until 2026-03-09T13:00:00.000Z'],
    // Kolkata is +05:30 all year.
    ['a half-hour zone', 'Asia/Kolkata', 'Mon-Fri 09:30-18:00', '2026-11-23T03:00:00Z', 'working_hours until 2026-11-23T04:00:00.000Z'],
    ['a half-hour zone after work', 'Asia/Kolkata', 'Mon-Fri 09:30-18:00', '2026-11-23T12:30:00Z', 'working_hours until 2026-11-24T04:00:00.000Z'],
    // Adelaide: +10:30 in the southern summer, +09:30 in winter; 03:00 goes back to 02:00 on 2026-04-05.
    ['Adelaide in the southern summer', 'Australia/Adelaide', 'Mon-Fri 09:00-17:00', '2026-01-11T22:00:00Z', 'working_hours until 2026-01-11T22:30:00.000Z'],
    ['Adelaide in the southern winter', 'Australia/Adelaide', 'Mon-Fri 09:00-17:00', '2026-07-12T23:00:00Z', 'working_hours until 2026-07-12T23:30:00.000Z'],
    ['Adelaide on the day its clocks go back', 'Australia/Adelaide', 'Sun 01:00-05:00', '2026-04-04T19:29:00Z', 'available'],
    ['Adelaide on the day its clocks go back, after the range', 'Australia/Adelaide', 'Sun 01:00-05:00', '2026-04-04T19:30:00Z', 'working_hours until 2026-04-11T15:30:00.000Z'],
    // An overnight range belongs to the day it starts on.
    ['Friday night runs into Saturday morning', 'UTC', 'Mon-Fri 22:00-06:00', '2026-11-28T05:59:00Z', 'available'],
    ['Saturday morning after the Friday night shift', 'UTC', 'Mon-Fri 22:00-06:00', '2026-11-28T06:00:00Z', 'working_hours until 2026-11-30T22:00:00.000Z'],
    ['Sunday night is not a shift', 'UTC', 'Mon-Fri 22:00-06:00', '2026-11-29T23:00:00Z', 'working_hours until 2026-11-30T22:00:00.000Z'],
    ['a week that wraps the weekend', 'UTC', 'Fri-Mon 10:00-14:00', '2026-11-24T12:00:00Z', 'working_hours until 2026-11-27T10:00:00.000Z'],
    ['a day ending at 24:00 meets the next day', 'UTC', 'Mon 12:00-24:00, Tue 00:00-08:00', '2026-11-24T00:00:00Z', 'available'],
  ])('%s (%s, %s)', (_, zone, hours, now, expected) => {
    expect(answer(now, rules(zone, hours))).toBe(expected);
  });

  it.each([
    // Singapore is +08:00, Berlin +01:00: 03:00 in Singapore is 20:00 in Berlin, before the org's quiet hours.
    ['an expert at 03:00 in Singapore waits for their morning, then for Berlin quiet hours to end', 'Asia/Singapore', 'Mon-Fri 09:00-18:00', '2026-11-24T19:00:00Z', 'working_hours until 2026-11-25T06:00:00.000Z'],
    ['Singapore without working hours is asked at 03:00 local', 'Asia/Singapore', null, '2026-11-24T19:00:00Z', 'available'],
    ['New York late afternoon is Berlin night: quiet hours, then the next New York morning', 'America/New_York', 'Mon-Fri 09:00-17:00', '2026-11-25T21:30:00Z', 'quiet_hours until 2026-11-26T14:00:00.000Z'],
    ['Berlin quiet hours cover the start of the working day', 'Europe/Berlin', 'Mon-Fri 07:00-19:00', '2026-11-23T06:30:00Z', 'quiet_hours until 2026-11-23T07:00:00.000Z'],
    ['Berlin quiet hours cover the end of Friday: until Monday 08:00', 'Europe/Berlin', 'Mon-Fri 07:00-19:00', '2026-11-27T17:30:00Z', 'quiet_hours until 2026-11-30T07:00:00.000Z'],
    ['a Saturday waits for Monday, after quiet hours', 'Europe/Berlin', 'Mon-Fri 07:00-19:00', '2026-11-28T09:00:00Z', 'working_hours until 2026-11-30T07:00:00.000Z'],
    ['working hours wholly inside quiet hours never qualify', 'Europe/Berlin', 'Mon-Fri 23:00-06:00', '2026-11-23T11:00:00Z', 'working_hours until never'],
  ])('%s', (_, zone, hours, now, expected) => {
    const quiet: [string, string] = zone === 'Europe/Berlin' && hours === 'Mon-Fri 07:00-19:00' ? ['18:00', '08:00'] : NIGHT;
    expect(answer(now, rules(zone, hours, { zone: 'Europe/Berlin', quiet }))).toBe(expected);
  });

  it.each([
    ['away until mid-morning: asked from then', { away: { until: at('2026-11-25T10:00:00Z') } }, '2026-11-23T09:00:00Z', 'away until 2026-11-25T10:00:00.000Z'],
    ['away until the evening: asked the next morning', { away: { until: at('2026-11-25T18:00:00Z') } }, '2026-11-23T09:00:00Z', 'away until 2026-11-26T08:00:00.000Z'],
    ['away is named even outside working hours', { away: { until: at('2026-11-25T10:00:00Z') } }, '2026-11-24T02:00:00Z', 'away until 2026-11-25T10:00:00.000Z'],
    ['away that has ended no longer counts', { away: { until: at('2026-11-23T08:00:00Z') } }, '2026-11-23T09:00:00Z', 'available'],
    ['do not disturb until half past', { dnd: { until: at('2026-11-23T09:30:00Z') } }, '2026-11-23T09:00:00Z', 'dnd until 2026-11-23T09:30:00.000Z'],
    ['do not disturb past the end of the day', { dnd: { until: at('2026-11-23T17:00:00Z') } }, '2026-11-23T16:00:00Z', 'dnd until 2026-11-24T08:00:00.000Z'],
    ['away comes before do not disturb', { away: { until: at('2026-11-23T10:00:00Z') }, dnd: { until: at('2026-11-23T11:00:00Z') } }, '2026-11-23T09:00:00Z', 'away until 2026-11-23T11:00:00.000Z'],
    ['away for three weeks still has an end', { away: { until: at('2026-12-14T12:00:00Z') } }, '2026-11-23T09:00:00Z', 'away until 2026-12-14T12:00:00.000Z'],
  ])('%s', (_, extra, now, expected) => {
    expect(answer(now, rules('Europe/Berlin', 'Mon-Fri 09:00-17:30', { quiet: NIGHT }, extra))).toBe(expected);
  });

  it('refuses a time zone it does not know instead of guessing', () => {
    expect(() => availability(at('2026-11-23T03:00:00Z'), rules('Europe/Berlln', 'Mon-Fri 09:00-17:00'))).toThrow('unknown time zone "Europe/Berlln"');
  });

  it('is always available with no rules at all', () => {
    expect(availability(at('2026-11-23T03:00:00Z'), rules('UTC', null))).toEqual({ available: true });
  });
});

describe('availability, for any instant', () => {
  const cases: AvailabilityRules[] = [
    rules('Europe/Berlin', 'Mon-Fri 09:00-17:30', { quiet: NIGHT }),
    rules('Asia/Singapore', 'Mon-Fri 09:00-18:00', { zone: 'Europe/Berlin', quiet: NIGHT }),
    rules('America/New_York', 'Mon-Thu 09:00-17:00, Fri 09:00-13:00', { zone: 'Europe/Berlin', quiet: NIGHT }),
    rules('Asia/Kolkata', 'Sun-Thu 09:30-18:00', { zone: 'UTC', quiet: ['12:00', '14:00'] }),
    rules('Australia/Adelaide', 'Mon-Fri 22:00-06:00', { zone: 'Europe/Berlin', quiet: ['01:30', '03:00'] }),
    rules('Europe/Berlin', 'Sun 01:00-02:30, Sat 22:00-06:00', { quiet: ['02:15', '02:45'] }),
  ];
  const instant = fc.integer({ min: at('2026-01-01T00:00:00Z'), max: at('2027-01-01T00:00:00Z') });
  const spell = fc.option(fc.integer({ min: 0, max: 10 * 86_400_000 }), { nil: undefined });

  it('waits until an instant that is available, and not one minute less', () => {
    fc.assert(
      fc.property(fc.constantFrom(...cases), instant, spell, spell, (base, now, away, dnd) => {
        const r = { ...base, away: away === undefined ? null : { until: now + away }, dnd: dnd === undefined ? null : { until: now + dnd } };
        const a = availability(now, r);
        if (a.available) return;
        expect(a.until).not.toBeNull();
        expect(a.until!).toBeGreaterThan(now);
        expect(availability(a.until!, r)).toEqual({ available: true });
        expect(availability(a.until! - 1, r).available).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('finds nothing available between now and the instant it names, minute by minute', () => {
    fc.assert(
      fc.property(fc.constantFrom(...cases), instant, (r, now) => {
        const a = availability(now, r);
        if (a.available) return;
        // The first and last six hours of the wait, a minute at a time (a whole weekend is too many minutes).
        for (let t = now; t < Math.min(a.until!, now + 360 * MINUTE); t += MINUTE) expect(availability(t, r).available).toBe(false);
        for (let t = a.until! - MINUTE; t > Math.max(now, a.until! - 360 * MINUTE); t -= MINUTE) expect(availability(t, r).available).toBe(false);
      }),
      { numRuns: 20 },
    );
  });
});
