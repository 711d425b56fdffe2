import { z } from 'zod';
import { expertEntrySchema, expertListSchema } from '../config/expert-schema.js';
import { isoTime } from './iso-time.js';

/** Wire shapes of the expert registry and topics: what `GET /experts` and `GET /topics` answer, and `PUT /experts` takes. */
export const awayView = z
  .object({
    until: isoTime.describe('When the spell ends by itself and the expert is asked again.'),
    delegate_to: z.string().nullable().describe('Who is asked instead while the expert is away, if anyone.'),
    note: z.string().nullable(),
    set_by: z.string().describe('Who set the expert away (`reviewer:<name>`).'),
    set_at: isoTime,
  })
  .meta({ id: 'Away' });

export const putAwayBody = z
  .object({
    until: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .describe('When the expert is back: an ISO date or time (a date or time without an offset is read in the expert’s time zone), or a duration from now such as `3d` or `1w`. At most a year ahead.'),
    delegate_to: z.string().trim().min(1).nullish().describe('Another expert asked first, while this one is away, with what would have gone to them.'),
    note: z.string().max(500).nullish().describe('Shown to whoever looks at the registry, e.g. "On holiday, back Monday".'),
  })
  .strict();

export const expertView = z
  .object({
    id: z.string(),
    name: z.string(),
    topics: z.array(z.string()),
    escalation_to: z.string().nullable(),
    slack: z.string().optional().describe('The expert’s Slack user id, when set.'),
    email: z.string().optional().describe('The expert’s email address, when set.'),
    teams: z.string().optional().describe('The expert’s Microsoft Entra object id (Teams), when set.'),
    channels: z.array(z.enum(['slack', 'teams', 'email'])).optional().describe('The expert’s order of preference, when set.'),
    reached_on: z
      .array(z.enum(['console', 'slack', 'teams', 'email']))
      .describe('Where a question to this expert goes, in order: the first is tried first, and a permanent failure there moves the question to the next. Empty: no running channel reaches the expert, and they are never asked.'),
    timezone: z.string().optional().describe('The expert’s own time zone, when set (else the organisation’s).'),
    working_hours: z.string().optional().describe('When the expert may be asked, in their time zone, as configured; absent: any time.'),
    max_open_asks: z.number().int().optional().describe('The expert’s own cap on open questions, when set (else the default).'),
    max_asks_per_day: z.number().int().optional().describe('The expert’s own cap on questions a day, counted in their time zone, when set (else the default).'),
    muted: z.boolean(),
    open_asks: z.number().int(),
    asks_today: z.number().int(),
    available_now: z.boolean().describe('Whether a new question could be sent to this expert this minute under the default limits and their working hours.'),
    next_available_at: isoTime
      .nullable()
      .describe('When a new question could next be sent to this expert, when known; null while they are available now, muted, or at their limit of open questions.'),
    unavailable: z
      .object({
        why: z
          .enum(['muted', 'away', 'dnd', 'cap', 'quiet_hours', 'working_hours'])
          .describe('muted: until they unmute; away: until their away spell ends, or their Slack away status expires; dnd: in Slack do-not-disturb (when Slack status is consulted); cap: at a limit of open questions or questions a day; quiet_hours: nobody is asked now; working_hours: outside the expert’s working hours.'),
        until: isoTime.optional().describe('When it ends, when that is known (quiet hours end, the daily limit resets, the working day starts).'),
      })
      .nullable(),
    away: awayView.nullable().describe('The expert’s away spell in force; null when they are not away.'),
  })
  .meta({ id: 'Expert' });

export const topicView = z
  .object({
    topic: z.string(),
    experts: z.number().int().describe('Experts who take the topic.'),
    available_now: z.number().int().describe('Of those, how many could be asked this minute.'),
    fallback: z.string().nullable().describe('The expert asked when nobody else matches, if any.'),
  })
  .meta({ id: 'Topic' });

export const putExpertsBody = expertListSchema;
export { expertEntrySchema };
