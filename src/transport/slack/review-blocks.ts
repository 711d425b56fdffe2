import type { types } from '@slack/bolt';
import type { ReviewCard } from '../transport.js';
import { clip, decisionLine, votesLines } from '../review-card-text.js';
import { escapeMrkdwn } from './slack-text.js';

type KnownBlock = types.KnownBlock;

/** Action ids of the review card's buttons and callback ids of its forms. */
export const REVIEW_ACTION = {
  accept: 'expertq_review_accept',
  edit: 'expertq_review_edit',
  reject: 'expertq_review_reject',
  return: 'expertq_review_return',
} as const;
export const REVIEW_MODAL = { edit: 'expertq_review_edit_modal', reject: 'expertq_review_reject_modal', return: 'expertq_review_return_modal' } as const;
export const REVIEW_INPUT = { block: 'review', action: 'text' } as const;

const quote = (text: string) => escapeMrkdwn(text).split('\n').map((line) => `>${line}`).join('\n');
/** The text of a card (the notification, and what screen readers read). */
export function reviewCardText(card: ReviewCard): string {
  const status = decisionLine(card) ?? 'Waiting for review';
  return escapeMrkdwn(`${status}. ${card.expertName} answered "${clip(card.question, 200)}" (asked by ${card.consumerId}).`);
}

/**
 * A proposal in the review channel: question, consumer, why it was asked, the expert and the answer;
 * under a review rule, the votes so far and who may still vote; while pending, Accept / Edit / Reject /
 * Send back; once decided, who decided and when, and no buttons.
 */
export function reviewCardBlocks(card: ReviewCard): KnownBlock[] {
  const blocks: KnownBlock[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `*Question* from \`${escapeMrkdwn(card.consumerId)}\`\n${quote(clip(card.question, 1500))}` } },
    { type: 'section', text: { type: 'mrkdwn', text: `*Asked because:* ${escapeMrkdwn(clip(card.askedBecause ?? '(no reason given)', 500))}` } },
    { type: 'section', text: { type: 'mrkdwn', text: `*Answer from ${escapeMrkdwn(card.expertName)}*\n${quote(clip(card.answer, 2500))}` } },
  ];
  if (card.source) {
    const original = card.originalQuestion ? `\nFirst asked as: ${escapeMrkdwn(clip(card.originalQuestion, 500))}` : '';
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `:books: ${escapeMrkdwn(card.source)}${original}` }] });
  }
  if (card.overdue && !card.decision) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `:hourglass: ${escapeMrkdwn(card.overdue)}` }] });
  const votes = votesLines(card);
  if (votes.length > 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `:ballot_box_with_ballot: ${escapeMrkdwn(votes.join('\n'))}` }] });
  const decided = decisionLine(card);
  if (decided) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(decided) }] });
    return blocks;
  }
  const button = (action_id: string, text: string, style?: 'primary' | 'danger') => ({
    type: 'button' as const,
    action_id,
    text: { type: 'plain_text' as const, text },
    value: card.proposalId,
    ...(style ? { style } : {}),
  });
  blocks.push({
    type: 'actions',
    block_id: 'expertq_review',
    elements: [
      button(REVIEW_ACTION.accept, 'Accept', 'primary'),
      button(REVIEW_ACTION.edit, 'Edit'),
      button(REVIEW_ACTION.reject, 'Reject', 'danger'),
      button(REVIEW_ACTION.return, 'Send back'),
    ],
  });
  return blocks;
}

/** The forms behind Edit, Reject and Send back: one multi-line input each (a reason and instructions are required). */
export function reviewModal(kind: keyof typeof REVIEW_MODAL, proposalId: string, initial = ''): types.View {
  const labels = {
    edit: { title: 'Edit and accept', submit: 'Accept edited', label: 'The answer to deliver (the expert\'s text is kept)' },
    reject: { title: 'Reject', submit: 'Reject', label: 'Reason (sent to the consumer)' },
    return: { title: 'Send back', submit: 'Send back', label: 'Instructions for the expert' },
  }[kind];
  return {
    type: 'modal',
    callback_id: REVIEW_MODAL[kind],
    private_metadata: proposalId,
    title: { type: 'plain_text', text: labels.title },
    submit: { type: 'plain_text', text: labels.submit },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'input',
        block_id: REVIEW_INPUT.block,
        label: { type: 'plain_text', text: labels.label },
        element: {
          type: 'plain_text_input',
          action_id: REVIEW_INPUT.action,
          multiline: true,
          max_length: kind === 'return' ? 2000 : 4000,
          ...(initial ? { initial_value: initial.slice(0, 4000) } : {}),
        },
      },
    ],
  };
}
