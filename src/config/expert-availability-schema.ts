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
  timezone: timeZoneSchema.optional(),
  working_hours: workingHoursSchema.optional(),
  max_open_asks: z.number().int().min(1).optional(),
  max_asks_per_day: z.number().int().min(1).optional(),
};
