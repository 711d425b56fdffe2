import { z } from 'zod';
import type { DailyWindow } from './daily-windows.js';

/**
 * An expert's working hours, written like `"Mon-Fri 09:00-17:30"` or several ranges separated by
 * commas: `"Mon-Thu 09:00-17:00, Fri 09:00-13:00"`. Each range is one day (`Sat`) or a span of days
 * that may wrap the weekend (`Sun-Thu`, `Fri-Mon`), then a local time span. `24:00` ends a range at
 * midnight; an end at or before the start (`22:00-06:00`) runs into the next day, and belongs to the
 * day it starts on. Ranges may overlap: the hours are their union.
 */
export interface WorkingHours {
  ranges: readonly WorkingRange[];
}

/** One range: ISO weekdays (1 = Monday … 7 = Sunday) and the local window each of them starts. */
export interface WorkingRange extends DailyWindow {
  days: readonly number[];
}

const DAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const DAY_HINT = 'write Mon, Tue, Wed, Thu, Fri, Sat or Sun';
const RANGE_SHAPE = /^(\S+)\s+(\S+)$/;
const TIME_SPAN = /^(\d{2}:\d{2})-(\d{2}:\d{2})$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;

/** Thrown by `parseWorkingHours`; the message is one sentence that quotes the offending part. */
export class WorkingHoursError extends Error {
  readonly code = 'invalid_working_hours';
}

/** Parses a working-hours text; throws `WorkingHoursError` naming the bad part. */
export function parseWorkingHours(text: string): WorkingHours {
  if (text.trim() === '') throw new WorkingHoursError('working hours are empty: leave the field out to mean any time');
  const parts = text.split(',').map((p) => p.trim());
  if (parts.some((p) => p === '')) throw new WorkingHoursError(`"${text}" has an empty range between commas`);
  return { ranges: parts.map(parseRange) };
}

/** Why a working-hours text is not acceptable, or null when it is. */
export function workingHoursProblem(text: string): string | null {
  try {
    parseWorkingHours(text);
    return null;
  } catch (err) {
    if (err instanceof WorkingHoursError) return err.message;
    throw err;
  }
}

/**
 * The `working_hours` field of an expert entry: validated, kept as written (so the registry can be
 * written back as the operator wrote it); parse it with `parseWorkingHours` where it is used.
 */
export const workingHoursSchema = z
  .string()
  .max(500)
  .superRefine((text, ctx) => {
    const problem = workingHoursProblem(text);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

function parseRange(range: string): WorkingRange {
  const shape = RANGE_SHAPE.exec(range);
  if (!shape) throw new WorkingHoursError(`"${range}" is not a range: write days then times, like "Mon-Fri 09:00-17:30"`);
  const days = parseDays(shape[1]!, range);
  const span = TIME_SPAN.exec(shape[2]!);
  if (!span) throw new WorkingHoursError(`"${shape[2]}" in "${range}" is not a time span: write it like 09:00-17:30`);
  const [start, end] = [span[1]!, span[2]!].map((time) => {
    if (!TIME.test(time)) throw new WorkingHoursError(`"${time}" in "${range}" is not a time of day between 00:00 and 24:00`);
    const [h, m] = time.split(':').map(Number);
    return h! * 60 + m!;
  }) as [number, number];
  if (start === 1440) throw new WorkingHoursError(`"${range}" starts at 24:00: write 00:00 for the start of a day`);
  if (start === end) throw new WorkingHoursError(`"${range}" starts and ends at the same time: write 00:00-24:00 for a whole day`);
  return { days, start, end: end === 0 ? 1440 : end };
}

function parseDays(text: string, range: string): number[] {
  const names = text.split('-');
  if (names.length > 2) throw new WorkingHoursError(`"${text}" in "${range}" is not a day or a span of days like Mon-Fri`);
  const [first, last] = names.map((name) => {
    const index = DAY_NAMES.indexOf(name.toLowerCase());
    if (index < 0) throw new WorkingHoursError(`"${name}" in "${range}" is not a day: ${DAY_HINT}`);
    return index + 1;
  }) as [number, number | undefined];
  if (last === undefined) return [first];
  if (last === first) throw new WorkingHoursError(`"${text}" in "${range}" starts and ends on the same day: write the day alone`);
  // A span wraps past Sunday when it ends on an earlier weekday than it starts (Fri-Mon).
  const count = ((last - first + 7) % 7) + 1;
  return Array.from({ length: count }, (_, i) => ((first - 1 + i) % 7) + 1);
}

/** The windows of working hours that start on a local date (of weekday `weekday`, 1 = Monday). */
export function windowsOnWeekday(hours: WorkingHours, weekday: number): DailyWindow[] {
  return hours.ranges.filter((r) => r.days.includes(weekday)).map(({ start, end }) => ({ start, end }));
}
