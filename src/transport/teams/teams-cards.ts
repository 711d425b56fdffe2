import type { ReviewCard } from '../transport.js';
import { clip, decisionLine, votesLines } from '../review-card-text.js';

/** An Adaptive Card as JSON (schema 1.5, the version Teams renders on every client). */
export interface Card {
  type: 'AdaptiveCard';
  $schema: string;
  version: '1.5';
  body: Array<Record<string, unknown>>;
  actions?: Array<Record<string, unknown>>;
}

/** The attachment content type of an Adaptive Card, in activities and invoke responses. */
export const CARD_TYPE = 'application/vnd.microsoft.card.adaptive';

/** Verbs of the ask card's and the review card's `Action.Execute` buttons. */
export const ASK_VERB = { answer: 'expertq.answer', skip: 'expertq.skip', mute: 'expertq.mute' } as const;
export const REVIEW_VERB = { accept: 'expertq.accept', edit: 'expertq.edit', reject: 'expertq.reject', return: 'expertq.return' } as const;
/** Ids of the cards' inputs (what `value.action.data` carries back). */
export const INPUT = { answer: 'answer', editedAnswer: 'edited_answer', reason: 'reason', instructions: 'instructions' } as const;

const card = (body: Card['body'], actions?: Card['actions']): Card => ({
  type: 'AdaptiveCard',
  $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
  version: '1.5',
  body,
  ...(actions ? { actions } : {}),
});

/**
 * Text shown as written: a RichTextBlock's TextRun is never read as Markdown, and a card without
 * `msteams.entities` makes no mention, so text from a consumer cannot add links, formatting or
 * mentions.
 */
const plain = (text: string, options: { weight?: 'Bolder'; subtle?: boolean } = {}) => ({
  type: 'RichTextBlock',
  inlines: [{ type: 'TextRun', text, ...(options.weight ? { weight: options.weight } : {}), ...(options.subtle ? { isSubtle: true } : {}) }],
});

const execute = (title: string, verb: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'Action.Execute', title, verb, data, ...extra });

/**
 * The ask: its six elements in order, one block each, an answer box, and Answer, Skip and Mute.
 * Each button carries the ask id, so a press is tied to this ask whatever else is open.
 */
export function askCard(elements: readonly string[], askId: string): Card {
  // The elements ride along, so the card that answers a press can show them again without a lookup.
  const data = { ask_id: askId, elements };
  return card(
    [
      ...elements.map((e) => plain(e)),
      { type: 'Input.Text', id: INPUT.answer, isMultiline: true, maxLength: 3000, placeholder: 'Your answer (one or two sentences is enough)', label: 'Your answer' },
    ],
    [
      execute('Answer', ASK_VERB.answer, data, { style: 'positive', associatedInputs: 'auto' }),
      execute('Skip', ASK_VERB.skip, data, { associatedInputs: 'none' }),
      execute('Mute', ASK_VERB.mute, data, { style: 'destructive', associatedInputs: 'none' }),
    ],
  );
}

/** The ask once closed: the same six elements, no box and no buttons, and a status line (and a refusal, when there is one). */
export function closedAskCard(elements: readonly string[], status: string, note?: string): Card {
  return card([...elements.map((e) => plain(e)), plain(status, { subtle: true }), ...(note ? [plain(note, { weight: 'Bolder' })] : [])]);
}

/** The ask still open, with a line saying why a press changed nothing (e.g. an empty answer). */
export function askCardWithNote(elements: readonly string[], askId: string, note: string): Card {
  const open = askCard(elements, askId);
  return { ...open, body: [...open.body.slice(0, -1), plain(note, { weight: 'Bolder' }), open.body.at(-1)!] };
}

/** What the review card says in one line (the activity's text: notifications and screen readers). */
export function reviewCardText(c: ReviewCard): string {
  return `${decisionLine(c) ?? 'Waiting for review'}. ${c.expertName} answered "${clip(c.question, 200)}" (asked by ${c.consumerId}).`;
}

/**
 * A proposal in the review channel: the question and who asked, why, the expert and the answer; while
 * pending, Accept, and Edit, Reject and Send back each opening its input; under a review rule, the votes
 * so far and who may still vote; once decided, who decided and when, and no buttons. `note`: a line for
 * the person who just pressed (a refusal, or where their vote stands).
 */
export function reviewCard(c: ReviewCard, note?: string): Card {
  const body: Card['body'] = [
    plain(`Question from ${c.consumerId}`, { weight: 'Bolder' }),
    plain(clip(c.question, 1500)),
    plain(`Asked because: ${clip(c.askedBecause ?? '(no reason given)', 500)}`),
    plain(`Answer from ${c.expertName}`, { weight: 'Bolder' }),
    plain(clip(c.answer, 2500)),
  ];
  if (c.source) body.push(plain(`${c.source}${c.originalQuestion ? `. First asked as: ${clip(c.originalQuestion, 500)}` : ''}`, { subtle: true }));
  if (c.overdue && !c.decision) body.push(plain(c.overdue, { subtle: true }));
  for (const line of votesLines(c)) body.push(plain(line));
  const decided = decisionLine(c);
  if (decided) body.push(plain(decided, { weight: 'Bolder' }));
  if (note) body.push(plain(note, { weight: 'Bolder' }));
  if (decided) return card(body);
  const data = { proposal_id: c.proposalId };
  const form = (title: string, verb: string, input: Record<string, unknown>) => ({
    type: 'Action.ShowCard',
    title,
    card: card([input], [execute(title, verb, data, { associatedInputs: 'auto' })]),
  });
  return card(body, [
    execute('Accept', REVIEW_VERB.accept, data, { style: 'positive', associatedInputs: 'none' }),
    form('Edit and accept', REVIEW_VERB.edit, { type: 'Input.Text', id: INPUT.editedAnswer, isMultiline: true, maxLength: 4000, value: clip(c.answer, 4000), label: 'The answer to deliver', isRequired: true, errorMessage: 'Write the answer to deliver' }),
    form('Reject', REVIEW_VERB.reject, { type: 'Input.Text', id: INPUT.reason, isMultiline: true, maxLength: 4000, label: 'Reason (sent to the consumer)', isRequired: true, errorMessage: 'Say why' }),
    form('Send back', REVIEW_VERB.return, { type: 'Input.Text', id: INPUT.instructions, isMultiline: true, maxLength: 2000, label: 'Instructions for the expert', isRequired: true, errorMessage: 'Say what to change' }),
  ]);
}
