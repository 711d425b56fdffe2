import { z } from 'zod';
import { workingHoursSchema } from '../core/working-hours.js';
import { timeZoneSchema } from './time-zone.js';

/**
 * The optional fields of an expert entry that say when the expert may be asked and how much: their
 * own time zone (default: the organisation's), working hours in it (default: any time), and caps that
 * override the defaults. Spread into the entry's object schema; texts stay as written so the registry
 * can be written back unchanged.
 */
export const expertAvailabilityFields = {
  timezone: timeZoneSchema.optional().describe('The expert\'s IANA time zone (`Asia/Singapore`): their working hours and their daily count are read in it. Unset: `org.timezone`.'),
  working_hours: workingHoursSchema.optional().describe('`"Mon-Fri 09:00-17:30"`, several ranges comma-separated (`"Mon-Thu 09:00-17:00, Fri 09:00-13:00"`). Outside them the expert is not asked: the ask waits, and routing prefers a colleague at work. Unset: any time.'),
  max_open_asks: z.number().int().min(1).optional().describe('This expert\'s own cap on unanswered asks, above or below `defaults.max_open_asks_per_expert`.'),
  max_asks_per_day: z.number().int().min(1).optional().describe('This expert\'s own cap on asks a day, the day counted in their time zone; replaces `defaults.max_asks_per_expert_per_day`.'),
};
