import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldForSearch, MAX_WORD_LENGTH, requestSearchWords, searchWords, startsWords, wordStartTests } from '../../src/core/search-words.js';

describe('the words text search knows', () => {
  it.each([
    ['Refund 100% of INVOICE_7?', ['refund', '100', 'of', 'invoice', '7']],
    ['RÉSUMÉ été', ['résumé', 'été']],
    ['re\u0301sume\u0301', ['résumé']],
    ['नमस्ते दुनिया', ['नमस्ते', 'दुनिया']],
    ['Straße ΣΊΣΥΦΟΣ', ['straße', 'σίσυφος']],
    ['e-mail: a.b@c.io', ['e', 'mail', 'a', 'b', 'c', 'io']],
    ['%_ ?! "\'\\', []],
  ])('%j → %j', (text, words) => {
    expect(searchWords(text)).toEqual(words);
  });

  it('keeps a long word to its first characters, never splitting one', () => {
    const [word] = searchWords('é'.repeat(MAX_WORD_LENGTH + 50));
    expect(Array.from(word!)).toHaveLength(MAX_WORD_LENGTH);
    expect(searchWords(`a${'𝒜'.repeat(MAX_WORD_LENGTH)}`)[0]).toBe(`a${'𝒜'.repeat(MAX_WORD_LENGTH - 1)}`);
  });

  it("a request's words are its question's and its drafted question's, each once", () => {
    expect(requestSearchWords('Refund? refund!', 'Which refund window?')).toEqual(['refund', 'which', 'window']);
    expect(requestSearchWords('Refund?', null)).toEqual(['refund']);
  });

  it('testing a text for word starts answers as its words do', () => {
    const texts = ['Refund 100% of INVOICE_7?', 'Résumé ÉTÉ', 're\u0301sume\u0301 (décomposé)', 'x-ray of the xylophone', 'नमस्ते दुनिया', 'ab.cd'];
    const queries = ['ref', 'fund', '7', 'invoice 7', 'résumé', 'sume', 'ray', 'xy', 'x ray', 'दुनि', 'cd', 'b', 'ab c'];
    for (const text of texts) {
      for (const query of queries) {
        const tests = wordStartTests(searchWords(query));
        expect([text, query, tests.every((test) => test(foldForSearch(text)))]).toEqual([text, query, startsWords(searchWords(query), searchWords(text))]);
      }
    }
  });
});

describe('plain ASCII text, split on its own faster path', () => {
  /** The general definition: runs of letters, marks and digits of the composed, lower-cased text. */
  const reference = (text: string) =>
    Array.from(text.normalize('NFC').toLowerCase().matchAll(/[\p{L}\p{M}\p{N}]+/gu), (m) => Array.from(m[0]).slice(0, MAX_WORD_LENGTH).join(''));

  it('has the same words and the same folded form as any other text', () => {
    const ascii = fc.string({ unit: 'binary-ascii', maxLength: 80 });
    const long = fc.tuple(fc.string({ unit: 'binary-ascii', maxLength: 5 }), fc.integer({ min: 190, max: 260 })).map(([edge, n]) => `${edge}${'Ab9'.repeat(n)}${edge}`);
    const mixed = fc.string({ unit: 'grapheme', maxLength: 40 });
    fc.assert(
      fc.property(fc.oneof(ascii, long, mixed), (text) => {
        expect(searchWords(text)).toEqual(reference(text));
        expect(foldForSearch(text)).toBe(text.normalize('NFC').toLowerCase());
      }),
      { numRuns: 2_000 },
    );
  });
});
