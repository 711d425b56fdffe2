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
