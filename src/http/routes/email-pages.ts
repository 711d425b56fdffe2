/** The small pages the email routes answer with: opened from mail, where the web UI's sign-in does not apply. */

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A page of its own: a title and a body of HTML (already escaped where it holds text). */
export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

/** What a review link's page shows before the reviewer confirms. */
export interface ReviewPageData {
  action: 'accept' | 'reject' | 'return';
  question: string;
  expertName: string;
  answer: string;
  /** Under a review rule: where the vote stands and who may still vote. */
  votes?: string[];
}

const VERB = { accept: 'Accept', reject: 'Reject', return: 'Send back' } as const;

/** The confirmation page: what is decided on, and a form whose POST decides (a reason or instructions where needed). */
export function reviewPage(data: ReviewPageData, action: string): string {
  const field =
    data.action === 'reject'
      ? '<p><label>Why it is rejected (the consumer is told)<br><textarea name="reason" rows="4" cols="60" required></textarea></label></p>'
      : data.action === 'return'
        ? '<p><label>What the expert should change<br><textarea name="instructions" rows="4" cols="60" required></textarea></label></p>'
        : '';
  return page(
    `${VERB[data.action]} this answer?`,
    `<p><strong>Question:</strong> ${escapeHtml(data.question)}</p><p><strong>Answer from ${escapeHtml(data.expertName)}:</strong><br>${escapeHtml(data.answer).replace(/\n/g, '<br>')}</p>` +
      (data.votes ?? []).map((line) => `<p>${escapeHtml(line)}</p>`).join('') +
      `<form method="post" action="${escapeHtml(action)}">${field}<button type="submit">${VERB[data.action]}</button></form>`,
  );
}
