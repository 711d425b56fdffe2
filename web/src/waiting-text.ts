import { waitSentence } from '../../src/core/wait-sentence.js';
import { waitWords, type AnswerSource } from '../../src/core/wait-words.js';
import type { AskedExpert, Waiting } from './wire.js';

/** What `waitingText` reads of a request (a subset, so tests and older servers can pass less). */
export interface WaitingFacts {
  status: string;
  waiting?: Waiting | null;
  gives_up_at?: string | null;
  asked?: AskedExpert[];
  proposal?: AnswerSource | null;
}

export interface WaitingOptions {
  now: number;
  /** An expert's name from their id (the id itself when unknown). */
  name: (expertId: string) => string;
  /** The viewer's zone unless given (tests pass one). */
  timeZone?: string;
}

const CLOSED = new Set(['accepted', 'rejected', 'failed']);

const dayKey = (ms: number, timeZone?: string) =>
  new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit', ...(timeZone ? { timeZone } : {}) }).format(ms);

/**
 * A time of day in 24-hour form, with the day when it is not the viewer's today: "14:00 today",
 * "07:00 Thu 26 Nov", and the year only when it is not this year ("09:15 Tue 5 Jan 2027").
 */
export function clockTime(iso: string, now: number, timeZone?: string): string {
  const at = Date.parse(iso);
  const zone = timeZone ? { timeZone } : {};
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', ...zone })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const time = `${parts.hour}:${parts.minute}`;
  if (dayKey(at, timeZone) === dayKey(now, timeZone)) return `${time} today`;
  const sameYear = dayKey(at, timeZone).slice(0, 4) === dayKey(now, timeZone).slice(0, 4);
  return `${time} ${parts.weekday} ${parts.day} ${parts.month}${sameYear ? '' : ` ${parts.year}`}`;
}

const list = (names: string[]) => (names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`);

/** Why it waits, in the words the CLI and MCP use too: on the clock of whom it waits for, named by its zone, and how far off. */
function whyText(waiting: Waiting, options: WaitingOptions, proposal: AnswerSource | null | undefined): string {
  const fallbackZone = options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  return waitSentence(waiting, { now: options.now, name: options.name, fallbackZone, proposal });
}

/**
 * Why an open request waits and when it gives up, in words for the request page; null parts are not
 * shown. A closed request, or a server that does not send these fields, gives nothing.
 */
export function waitingText(request: WaitingFacts, options: WaitingOptions): { waiting: string | null; givesUp: string | null } {
  if (CLOSED.has(request.status)) return { waiting: null, givesUp: null };
  const givesUp = request.gives_up_at ? `Gives up at ${clockTime(request.gives_up_at, options.now, options.timeZone)}` : null;
  if (request.waiting) return { waiting: whyText(request.waiting, options, request.proposal), givesUp };
  const asked = request.asked ?? [];
  if (asked.length === 0) return { waiting: null, givesUp };
  const sent = asked.length === 1 && asked[0]!.sent_at ? ` at ${clockTime(asked[0]!.sent_at, options.now, options.timeZone)}` : '';
  return { waiting: `Asked ${list(asked.map((a) => a.expert_name))}${sent}; waiting for the answer`, givesUp };
}

/** A short note beside an open request's status in a list: why nobody is asked now (null when someone is, or it waits for review). */
export function waitNote(waiting: { why: string } | null | undefined): string | null {
  const words = waitWords(waiting);
  // The table has room to say what "held" means.
  return words === 'held' ? 'held: experts at their limit' : words;
}
