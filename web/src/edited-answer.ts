import type { QueueItem } from './wire.js';

/** The reviewer's edit when it changes the answer (trimmed), else null: "Accept" then delivers the expert's text. */
export function editedAnswer(item: QueueItem, edit: string | undefined): string | null {
  const text = edit?.trim();
  return text && text !== item.proposal.answer ? text : null;
}
