import { describe, expect, it } from 'vitest';
import { previousAnswerLine } from '../../src/core/previous-answer.js';
import { isSameReply } from '../../src/core/read-reply.js';

const AUG_1_LATE = Date.parse('2026-08-01T23:30:00Z');

describe('the previous answer an ask shows', () => {
  it('dates it in the organisation’s zone', () => {
    const line = (timeZone: string) => previousAnswerLine({ answer: 'Thirty days.', expertName: 'Dana Smith', verifiedAt: AUG_1_LATE, timeZone });
    expect(line('UTC')).toBe('Last time (Aug 1, 2026) Dana Smith answered: “Thirty days.”. If it still holds, reply `same`.');
    expect(line('Europe/Berlin')).toContain('(Aug 2, 2026)');
  });

  it('quotes a long answer on one line, cut at a word and marked as cut', () => {
    const answer = `First line.\n\n${'word '.repeat(100)}end`;
    const line = previousAnswerLine({ answer, expertName: 'Dana Smith', verifiedAt: AUG_1_LATE, timeZone: 'UTC' });
    const quoted = /“(.*)”/.exec(line)![1]!;
    expect(quoted).not.toContain('\n');
    expect(quoted.startsWith('First line. word word')).toBe(true);
    expect(quoted.endsWith('word…')).toBe(true);
    expect(quoted.length).toBeLessThanOrEqual(281);
  });
});

describe('`same` as a reply', () => {
  it.each(['same', 'Same', ' SAME ', 'same.', 'Same!', '"same"'])('%j confirms', (text) => expect(isSameReply(text)).toBe(true));
  it.each(['same as before but 45 days', 'the same', 'sam', ''])('%j does not', (text) => expect(isSameReply(text)).toBe(false));
});
