/**
 * What email-reply-parser leaves of an Outlook reply, cut. The library recognises Outlook's quote header
 * only when its `From:` line carries an address (`Name <addr>` or `[mailto:addr]`); Outlook writes the
 * display name alone for people it knows, and an HTML reply's `<hr>` above the quote becomes a line of
 * dashes. This runs after the library, on its visible text, and cuts from the first header block
 * (`From:`, then `Sent:`/`Date:` within two lines and `Subject:` soon after, or their German forms;
 * all three, so an answer that merely mentions a From line keeps it) and the separator line
 * just above it; a separator line left at the very end is dropped too. Anything the library already
 * cut stays cut; an answer without such a block is returned as it was.
 */
export function cutOutlookQuote(text: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex(
    (line, i) => FROM.test(line) && lines.slice(i + 1, i + 3).some((l) => SENT.test(l)) && lines.slice(i + 2, i + 6).some((l) => SUBJECT.test(l)),
  );
  const kept = start < 0 ? lines : lines.slice(0, start);
  while (kept.length > 0 && (SEPARATOR.test(kept[kept.length - 1]!) || kept[kept.length - 1]!.trim() === '')) kept.pop();
  return kept.join('\n');
}

/** `From: …` as Outlook writes it (in bold from HTML it may arrive as `*From:*`). */
const FROM = /^\s*\*?(From|Von):\*?\s+\S/i;
const SENT = /^\s*\*?(Sent|Date|Gesendet|Datum):\*?\s+\S/i;
const SUBJECT = /^\s*\*?(Subject|Betreff):\*?\s/i;
/** A rule: dashes, underscores or equals signs alone on a line, or Outlook's "Original Message" line. */
const SEPARATOR = /^\s*([-_=]{5,}|-+\s*(Original Message|Ursprüngliche Nachricht)\s*-+)\s*$/i;
