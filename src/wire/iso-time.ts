import { z } from 'zod';

/** An instant on the wire: ISO-8601 with milliseconds and `Z`, described as `date-time` in the API description. */
export const isoTime = z.string().meta({ format: 'date-time' });
