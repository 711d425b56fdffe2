import type { FailureCode } from '../domain/records.js';

/**
 * What a threaded transport (Slack) tells an expert after each reply, in the ask's thread, and the
 * status line the ask message gets when the ask closes. Short, specific, and never a question: the
 * expert should not have to reply to a status.
 */
export type ReplyFeedback =
  | { outcome: 'proposed' }
  | { outcome: 'late_reply' }
  | { outcome: 'skipped'; passedTo: string | null }
  | { outcome: 'muted'; passedTo: string | null; hadAsk: boolean }
  | { outcome: 'unmuted' }
  | { outcome: 'ignored' };

export function composeReplyFeedback(f: ReplyFeedback): string {
  switch (f.outcome) {
    case 'proposed':
      return 'Thank you! Your answer is recorded and waiting for human review. You will hear here when it is accepted.';
    case 'late_reply':
      return 'Thank you, but this question was already answered or closed, so this reply was not used.';
    case 'skipped':
      return f.passedTo ? `OK, skipped: passed on to ${f.passedTo}.` : 'OK, skipped. Nobody else could take it, so the requester is told.';
    case 'muted': {
      const pass = !f.hadAsk ? '' : f.passedTo ? ` This question was passed on to ${f.passedTo}.` : ' This question was withdrawn.';
      return `You are muted: no more questions until you reply \`unmute\`.${pass}`;
    }
    case 'unmuted':
      return 'Welcome back: you will receive questions again.';
    case 'ignored':
      return 'This question was already decided, so that changed nothing.';
  }
}

/** Why an ask closed, for the status line of its message. */
export type AskClosure =
  | { why: 'answered' }
  | { why: 'answered_elsewhere'; by: string }
  | { why: 'skipped'; passedTo: string | null }
  | { why: 'muted' }
  | { why: 'away'; passedTo: string | null }
  | { why: 'escalated'; to: string; after: string }
  | { why: 'failed'; code: FailureCode };

export function composeAskStatus(c: AskClosure): string {
  switch (c.why) {
    case 'answered':
      return 'Answered. Thank you! The answer is waiting for human review.';
    case 'answered_elsewhere':
      return `Closed: ${c.by} answered this first. Nothing more is needed from you.`;
    case 'skipped':
      return c.passedTo ? `Skipped: passed on to ${c.passedTo}.` : 'Skipped. Nobody else could take it.';
    case 'muted':
      return 'Muted: passed on. Reply `unmute` to receive questions again.';
    case 'away':
      return c.passedTo ? `You are away: passed on to ${c.passedTo}.` : 'You are away: nobody else could take it.';
    case 'escalated':
      return `No reply within ${c.after}, so this was passed on to ${c.to}. An answer in this thread is still welcome.`;
    case 'failed':
      return c.code === 'cancelled'
        ? 'Closed: the requester cancelled this question. Nothing more is needed from you.'
        : c.code === 'timeout'
          ? 'Closed: nobody answered in time, so the question was withdrawn.'
          : 'Closed: this question was withdrawn. Nothing more is needed from you.';
  }
}

/** Top-level DM answers where a message could not be tied to one question. */
export function composeNoOpenAsk(): string {
  return 'Thanks, but there is no open question for you right now, so this message was not recorded. Reply `unmute` or `mute` at any time.';
}

/** Where to answer when several questions are open, in the words of the channel the expert wrote on. */
const ANSWER_WHERE: Record<string, string> = {
  teams: 'Please answer in the card of the question you mean: type in its answer box and press Answer.',
  email: 'Please reply to the mail of the question you mean.',
};

export function composeAnswerInThread(openAsks: number, channel?: string | null): string {
  const where = (channel && ANSWER_WHERE[channel]) ?? 'Please reply in the thread of the question you mean (or use its Answer button).';
  return `You have ${openAsks} open questions, so I can't tell which one this answers. ${where}`;
}
