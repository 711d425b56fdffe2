import { localDayParts, relativeText } from './describe-time.js';
import { answeredWords, capitalized, PREPARING, type AnswerSource } from './wait-words.js';

/** A request's `waiting` as the API sends it; `timezone` may be missing from an older server. */
export interface WaitFacts {
  why: string;
  expert_id?: string | undefined;
  until?: string | undefined;
  /** The IANA zone whose clock `until` is read on: the expert's for their day, the organisation's for quiet hours. */
  timezone?: string | undefined;
}

export interface WaitSentenceOptions {
  now: number;
  /** The expert's name for `expert_id` (the id itself when unknown). */
  name: (expertId: string) => string;
  /** The zone for `until` when the server did not name one (an older server): the organisation's. */
  fallbackZone?: string;
  /** The proposal of a request that waits for review, for who answered. */
  proposal?: AnswerSource | null | undefined;
}

/**
 * An instant on the clock of the person it concerns, named by its zone, with the day and how far
 * away it is: "02:00 Asia/Kathmandu on Tue 8 Dec, in 11 h", "14:00 Europe/Berlin today, in 3 h".
 * "Today" is that zone's day; the year shows when it is not this year.
 */
export function onTheirClock(ms: number, now: number, timeZone: string): string {
  const { clock, date, today } = localDayParts(ms, now, timeZone);
  const zone = timeZone === 'Etc/UTC' ? 'UTC' : timeZone;
  return `${clock} ${zone} ${today ? 'today' : `on ${date}`}, ${relativeText(ms, now)}`;
}

/**
 * Why an open request waits, as one sentence (capitalised, no full stop) that the CLI, the web UI and
 * MCP progress messages all show: whom it waits for and, when known, until when on whose clock
 * ("Lee Chen starts work at 02:00 Asia/Kathmandu on Tue 8 Dec, in 11 h").
 */
export function waitSentence(wait: WaitFacts, options: WaitSentenceOptions): string {
  const ms = wait.until === undefined ? Number.NaN : Date.parse(wait.until);
  const zone = wait.timezone ?? options.fallbackZone ?? 'UTC';
  const at = Number.isNaN(ms) ? null : onTheirClock(ms, options.now, zone);
  const who = wait.expert_id ? options.name(wait.expert_id) : null;
  const expert = who ?? 'The expert';
  switch (wait.why) {
    case 'llm':
      return capitalized(PREPARING);
    case 'review':
      return `${answeredWords(options.proposal, { sentence: true })}; a reviewer must accept, reject or send it back`;
    case 'working_hours':
      return at ? `${expert} starts work at ${at}` : `${expert} is outside their working hours`;
    case 'quiet_hours':
      return at ? `Quiet hours end at ${at}; then ${who ?? 'the expert'} is asked` : 'Quiet hours: nobody is asked until they end';
    case 'away':
      return at ? `${expert} is away until ${at}` : `${expert} is away`;
    case 'dnd':
      return at ? `${expert} has do-not-disturb on until ${at}` : `${expert} has do-not-disturb on`;
    case 'cap':
      // A known end is a daily limit's reset (each expert's own midnight); without one, a limit on open asks frees when one is answered.
      if (at) return `${who ? `${who} is` : 'Every expert for this topic is'} at their daily limit; the question goes out at ${at}`;
      return `${who ? `${who} is` : 'Every expert for this topic is'} at their limit; the question goes out when ${who ? 'they answer' : 'one of them answers'} an open question`;
    default:
      return `Waiting (${wait.why.replace(/_/g, ' ')})${who ? ` for ${who}` : ''}${at ? ` until ${at}` : ''}`;
  }
}
