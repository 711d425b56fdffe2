/**
 * Whether the receiving mail server's `Authentication-Results` (RFC 8601) say the message failed DMARC
 * for its From domain: a sign that someone else's server sent mail in the expert's name.
 *
 * Why a small reader of our own: we do not verify DKIM/SPF/DMARC ourselves (the receiving server already
 * did, and says so in this header), and the library that parses these headers well (`mailauth`) needs
 * Node 22 while expertq runs on Node 20. The header's grammar is simple enough for the one question asked:
 * comments in parentheses are dropped, the value is split into `;`-separated results, the first part
 * (the server's name) is skipped, and a result `dmarc=fail` counts when its `header.from` is the From
 * domain, or when it names no domain (a DMARC result is about the From domain by definition).
 *
 * Every `Authentication-Results` header counts, not only the topmost: a sender can add headers of its
 * own, but a forged one can only make its own mail refused, never accepted.
 */
export function dmarcFail(authResults: readonly string[], fromDomain: string | null): boolean {
  return authResults.some((header) => dmarcResults(header).some((r) => r.result === 'fail' && (r.domain === null || r.domain === fromDomain)));
}

interface DmarcResult {
  result: string;
  /** The `header.from` property, lower-cased; null when the result does not name one. */
  domain: string | null;
}

/** The `dmarc=…` results of one header value. */
export function dmarcResults(header: string): DmarcResult[] {
  const parts = stripComments(header).split(';').slice(1);
  const results: DmarcResult[] = [];
  for (const part of parts) {
    const [method, ...properties] = part.trim().split(/\s+/);
    const m = /^dmarc(?:\/\d+)?=([a-z]+)$/i.exec(method ?? '');
    if (!m) continue;
    const from = properties.map((p) => /^header\.from=(.+)$/i.exec(p)?.[1]).find((v) => v !== undefined);
    results.push({ result: m[1]!.toLowerCase(), domain: from ? (unquote(from).split('@').pop() ?? '').toLowerCase() : null });
  }
  return results;
}

/** Drops RFC 5322 comments, nested ones too; quoted strings are left as they are. */
function stripComments(value: string): string {
  let out = '';
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\' && i + 1 < value.length) {
      if (depth === 0) out += c + value[i + 1];
      i++;
    } else if (c === '"' && depth === 0) {
      quoted = !quoted;
      out += c;
    } else if (c === '(' && !quoted) depth++;
    else if (c === ')' && !quoted && depth > 0) depth--;
    else if (depth === 0) out += c;
  }
  return out;
}

function unquote(value: string): string {
  return value.replace(/^"(.*)"$/, '$1');
}
