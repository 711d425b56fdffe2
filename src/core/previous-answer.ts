import { localTime } from './local-time.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** How much of a previous answer an ask quotes: enough for an expert to recognise it, short enough to read in a chat line. */
export const PREVIOUS_ANSWER_QUOTE_CHARS = 280;

/** A library entry past its `verify_after`, shown to the expert asked the same question again. */
export interface PreviousAnswer {
  answer: string;
  expertName: string;
  /** When the entry was last known right (epoch ms). */
  verifiedAt: number;
  /** The organisation's zone: the date is the day it was in that zone. */
  timeZone: string;
}

/**
 * The line an ask carries right after its question when a stale library entry asked the same
 * question: who answered, when, the answer quoted on one line (a long one cut at a word and marked
 * with "…"), and how to confirm it with `same`.
 */
export function previousAnswerLine(previous: PreviousAnswer): string {
  const at = localTime(previous.verifiedAt, previous.timeZone);
  const date = `${MONTHS[at.month - 1]} ${at.day}, ${at.year}`;
  return `Last time (${date}) ${previous.expertName} answered: “${quote(previous.answer)}”. If it still holds, reply \`same\`.`;
}

function quote(answer: string): string {
  const text = answer.replace(/\s+/g, ' ').trim();
  if (text.length <= PREVIOUS_ANSWER_QUOTE_CHARS) return text;
  const cut = text.slice(0, PREVIOUS_ANSWER_QUOTE_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${(space > PREVIOUS_ANSWER_QUOTE_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s.,;:]+$/, '')}…`;
}
