import type { HeaderLines } from 'mailparser';

/**
 * Small readers for header text that mailparser hands over raw: its `headerLines` (every occurrence of a
 * header, in order, which matters for `Delivered-To` and `Authentication-Results` that a message can
 * carry several times) and the header blocks inside a delivery status notification.
 */

/** Every value of header `name` (any case), unfolded (RFC 5322 §2.2.3), in the order they appear. */
export function headerValues(lines: HeaderLines, name: string): string[] {
  const key = name.toLowerCase();
  return lines.filter((l) => l.key === key).map((l) => unfold(l.line.slice(l.line.indexOf(':') + 1)));
}

/** The first value of header `name`, or null when the message has none. */
export function headerValue(lines: HeaderLines, name: string): string | null {
  return headerValues(lines, name)[0] ?? null;
}

/**
 * The header blocks of a `message/delivery-status` body (RFC 3464 §2.1): the per-message fields, then one
 * block per recipient, blank lines between. Each block maps lower-cased field names to unfolded values
 * (the first occurrence wins). Reading stops at the first blank line only when `oneBlock` is set, which
 * is how the header section of a returned message (`message/rfc822`, `text/rfc822-headers`) is read.
 */
export function headerBlocks(text: string, oneBlock = false): Array<Map<string, string>> {
  const blocks: Array<Map<string, string>> = [];
  let fields: Array<[string, string]> = [];
  const close = () => {
    if (fields.length > 0) blocks.push(new Map(fields.reverse()));
    fields = [];
  };
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (line.trim() === '') {
      close();
      if (oneBlock && blocks.length > 0) return blocks;
    } else if (/^[ \t]/.test(line) && fields.length > 0) {
      const last = fields[fields.length - 1]!;
      last[1] = `${last[1]} ${line.trim()}`;
    } else {
      const colon = line.indexOf(':');
      if (colon > 0) fields.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
    }
  }
  close();
  return blocks;
}

/** Message-IDs in a header value, angle brackets kept as they are written (`<id@host>`). */
export function messageIds(value: string): string[] {
  return value.match(/<[^<>\s]+>/g) ?? [];
}

function unfold(value: string): string {
  return value.replace(/\r?\n(?=[ \t])/g, '').trim();
}
