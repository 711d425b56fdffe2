import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { expertAvailabilityFields } from '../../src/config/expert-availability-schema.js';
import { parseWorkingHours, workingHoursProblem } from '../../src/core/working-hours.js';

const [MON, TUE, WED, THU, FRI, SAT, SUN] = [1, 2, 3, 4, 5, 6, 7];
const hm = (h: number, m = 0) => h * 60 + m;

describe('parseWorkingHours', () => {
  it.each([
    ['Mon-Fri 09:00-17:30', [{ days: [MON, TUE, WED, THU, FRI], start: hm(9), end: hm(17, 30) }]],
    [
      'Mon-Thu 09:00-17:00, Fri 09:00-13:00',
      [
        { days: [MON, TUE, WED, THU], start: hm(9), end: hm(17) },
        { days: [FRI], start: hm(9), end: hm(13) },
      ],
    ],
    ['Sat 10:00-12:00', [{ days: [SAT], start: hm(10), end: hm(12) }]],
    ['Sun-Thu 08:00-16:00', [{ days: [SUN, MON, TUE, WED, THU], start: hm(8), end: hm(16) }]],
    ['Fri-Mon 10:00-14:00', [{ days: [FRI, SAT, SUN, MON], start: hm(10), end: hm(14) }]],
    ['Mon-Sun 00:00-24:00', [{ days: [MON, TUE, WED, THU, FRI, SAT, SUN], start: 0, end: hm(24) }]],
    ['Mon-Fri 22:00-06:00', [{ days: [MON, TUE, WED, THU, FRI], start: hm(22), end: hm(6) }]],
    ['Mon-Fri 09:00-00:00', [{ days: [MON, TUE, WED, THU, FRI], start: hm(9), end: hm(24) }]],
    ['  mon-FRI   09:00-17:00 ,sat 10:00-11:00 ', [
      { days: [MON, TUE, WED, THU, FRI], start: hm(9), end: hm(17) },
      { days: [SAT], start: hm(10), end: hm(11) },
    ]],
  ])('reads %j', (text, ranges) => {
    expect(parseWorkingHours(text)).toEqual({ ranges });
  });

  it.each([
    ['', 'working hours are empty: leave the field out to mean any time'],
    ['Mon-Fri 09:00-17:00,', '"Mon-Fri 09:00-17:00," has an empty range between commas'],
    ['09:00-17:00', '"09:00-17:00" is not a range: write days then times, like "Mon-Fri 09:00-17:30"'],
    ['Mon - Fri 09:00-17:00', '"Mon - Fri 09:00-17:00" is not a range: write days then times, like "Mon-Fri 09:00-17:30"'],
    ['Mon-Fry 09:00-17:00', '"Fry" in "Mon-Fry 09:00-17:00" is not a day: write Mon, Tue, Wed, Thu, Fri, Sat or Sun'],
    ['Monday 09:00-17:00', '"Monday" in "Monday 09:00-17:00" is not a day: write Mon, Tue, Wed, Thu, Fri, Sat or Sun'],
    ['Mon-Wed-Fri 09:00-17:00', '"Mon-Wed-Fri" in "Mon-Wed-Fri 09:00-17:00" is not a day or a span of days like Mon-Fri'],
    ['Mon-Mon 09:00-17:00', '"Mon-Mon" in "Mon-Mon 09:00-17:00" starts and ends on the same day: write the day alone'],
    ['Mon-Fri 9-17', '"9-17" in "Mon-Fri 9-17" is not a time span: write it like 09:00-17:30'],
    ['Mon-Fri 9:00-17:00', '"9:00-17:00" in "Mon-Fri 9:00-17:00" is not a time span: write it like 09:00-17:30'],
    ['Mon-Fri 09:00-25:00', '"25:00" in "Mon-Fri 09:00-25:00" is not a time of day between 00:00 and 24:00'],
    ['Mon-Fri 09:60-17:00', '"09:60" in "Mon-Fri 09:60-17:00" is not a time of day between 00:00 and 24:00'],
    ['Mon-Fri 24:00-06:00', '"Mon-Fri 24:00-06:00" starts at 24:00: write 00:00 for the start of a day'],
    ['Sat 09:00-09:00', '"Sat 09:00-09:00" starts and ends at the same time: write 00:00-24:00 for a whole day'],
    ['Mon-Fri 09:00-17:00, Sat 10:00', '"10:00" in "Sat 10:00" is not a time span: write it like 09:00-17:30'],
  ])('refuses %j', (text, message) => {
    expect(() => parseWorkingHours(text)).toThrow(message);
    expect(workingHoursProblem(text)).toBe(message);
  });

  it('accepts what it reads', () => {
    expect(workingHoursProblem('Mon-Fri 09:00-17:30')).toBeNull();
  });
});

describe('availability fields of an expert entry', () => {
  const expertEntrySchema = z.object({ id: z.string(), name: z.string(), topics: z.array(z.string()), ...expertAvailabilityFields }).strict();
  const base = { id: 'ana', name: 'Ana', topics: ['billing'] };
  const issues = (entry: object) => {
    const result = expertEntrySchema.safeParse({ ...base, ...entry });
    return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('takes a time zone, working hours and per-expert caps, keeping the hours as written', () => {
    const entry = { timezone: 'Asia/Kolkata', working_hours: 'Mon-Fri 09:30-18:00', max_open_asks: 2, max_asks_per_day: 10 };
    expect(expertEntrySchema.parse({ ...base, ...entry })).toEqual({ ...base, ...entry });
    expect(issues({})).toEqual([]);
  });

  it('names the bad field and the bad part', () => {
    expect(issues({ timezone: 'Europe/Berlln' })).toEqual(['timezone: must be an IANA time zone such as Europe/Berlin']);
    expect(issues({ working_hours: 'Mon-Fri 09:00-17:70' })).toEqual([
      'working_hours: "17:70" in "Mon-Fri 09:00-17:70" is not a time of day between 00:00 and 24:00',
    ]);
    expect(issues({ max_open_asks: 0 })).toEqual(['max_open_asks: Too small: expected number to be >=1']);
    expect(issues({ max_asks_per_day: 1.5 })).toEqual(['max_asks_per_day: Invalid input: expected int, received number']);
  });
});
