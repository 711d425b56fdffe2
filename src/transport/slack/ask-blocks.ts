import type { types } from '@slack/bolt';
import { escapeMrkdwn } from './slack-text.js';

type KnownBlock = types.KnownBlock;

/** Action ids of the ask's buttons and the Answer modal. */
export const ACTION = { answer: 'expertq_answer', skip: 'expertq_skip', mute: 'expertq_mute' } as const;
export const ANSWER_MODAL = 'expertq_answer_modal';
export const ANSWER_INPUT = { block: 'answer', action: 'text' } as const;

const section = (text: string): KnownBlock => ({ type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(text) } });

/**
 * The ask as Block Kit: the six elements, in order, one section each, then Answer / Skip / Mute.
 * Each button carries the ask id, so a click is tied to one ask whatever else is open.
 */
export function askBlocks(elements: readonly string[], askId: string): KnownBlock[] {
  return [
    ...elements.map(section),
    {
      type: 'actions',
      block_id: 'expertq_ask',
      elements: [
        { type: 'button', action_id: ACTION.answer, text: { type: 'plain_text', text: 'Answer' }, style: 'primary', value: askId },
        { type: 'button', action_id: ACTION.skip, text: { type: 'plain_text', text: 'Skip' }, value: askId },
        { type: 'button', action_id: ACTION.mute, text: { type: 'plain_text', text: 'Mute' }, style: 'danger', value: askId },
      ],
    },
  ];
}

/** The ask once it is closed: the same six elements, no buttons, and a status line. */
export function closedAskBlocks(elements: readonly string[], status: string): KnownBlock[] {
  return [...elements.map(section), { type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(status) }] }];
}

/**
 * The Answer modal: one multi-line input; `private_metadata` carries the ask id. `questionMrkdwn` is
 * the question block of the ask message as Slack holds it (already escaped), shown above the input.
 */
export function answerModal(askId: string, questionMrkdwn: string): types.View {
  return {
    type: 'modal',
    callback_id: ANSWER_MODAL,
    private_metadata: askId,
    title: { type: 'plain_text', text: 'Answer' },
    submit: { type: 'plain_text', text: 'Send answer' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      ...(questionMrkdwn ? [{ type: 'section', text: { type: 'mrkdwn', text: questionMrkdwn.slice(0, 3000) } } satisfies KnownBlock] : []),
      {
        type: 'input',
        block_id: ANSWER_INPUT.block,
        label: { type: 'plain_text', text: 'Your answer (one or two sentences is enough)' },
        element: { type: 'plain_text_input', action_id: ANSWER_INPUT.action, multiline: true, max_length: 3000 },
      },
    ],
  };
}
