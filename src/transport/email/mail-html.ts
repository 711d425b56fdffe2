/**
 * The HTML part of expertq's mail: paragraphs of plain text, escaped, with `backtick spans` shown as
 * code and web addresses as links. Deliberately bare (no styles, no images): mail clients render it
 * alike, and nothing in it calls out to a server when the mail is opened.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe inside HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Punctuation that ends a sentence rather than an address ("see https://x.example/guide."). */
const URL_PATTERN = /https?:\/\/[^\s<>"'`]*[^\s<>"'`.,;:!?)\]]/g;

function linkify(escaped: string): string {
  return escaped.replace(URL_PATTERN, (url) => `<a href="${url}">${url}</a>`);
}

/** One paragraph: escaped, `code` spans, links outside code, line breaks kept. */
export function htmlParagraph(text: string): string {
  const parts = text.split('`');
  // An odd count of backticks leaves the last one literal rather than opening a span that never closes.
  const html = parts
    .map((part, i) => {
      const escaped = escapeHtml(part);
      if (i % 2 === 1 && i < parts.length - 1) return `<code>${escaped}</code>`;
      return (i % 2 === 1 ? '`' : '') + linkify(escaped);
    })
    .join('');
  return `<p>${html.replace(/\r?\n/g, '<br>\n')}</p>`;
}

/** A whole HTML document of paragraphs, one per entry, in order. */
export function htmlDocument(paragraphs: readonly string[]): string {
  return [
    '<!doctype html>',
    '<html><head><meta charset="utf-8"></head><body>',
    ...paragraphs.map(htmlParagraph),
    '</body></html>',
  ].join('\n');
}

/** Text on one line, cut to `max` characters with `…` (subjects). */
export function oneLine(text: string, max: number): string {
  const chars = Array.from(text.replace(/\s+/g, ' ').trim());
  return chars.length > max ? `${chars.slice(0, max - 1).join('').trimEnd()}…` : chars.join('');
}
