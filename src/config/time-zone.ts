import { z } from 'zod';

/** Whether `Intl` knows a time zone name (IANA, e.g. Europe/Berlin, or UTC). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export const timeZoneSchema = z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin');
