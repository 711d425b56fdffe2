import { describe, expect, it } from 'vitest';
import { checkStructured, DEFAULT_KIND_SCHEMA, isStrictCompatible, structureCall } from '../../src/llm/structure-answer.js';

const POLICY_SCHEMA = {
  type: 'object',
  properties: { days: { type: 'integer', minimum: 0 }, applies_to: { type: 'string', enum: ['disputed', 'all'] } },
  required: ['days'],
};
const reply = (body: unknown) => JSON.stringify(body);

describe('checkStructured', () => {
  it.each([
    ['the default {summary, facts}', DEFAULT_KIND_SCHEMA, { structured: { summary: 'Thirty days.', facts: ['30 days'] }, confidence: 0.8 }],
    ['a consumer schema', POLICY_SCHEMA, { structured: { days: 30, applies_to: 'disputed' }, confidence: 1 }],
    ['confidence 0', POLICY_SCHEMA, { structured: { days: 0 }, confidence: 0 }],
  ])('accepts %s', (_what, schema, body) => {
    expect(checkStructured(reply(body), schema)).toEqual({ ok: true, structured: body.structured, confidence: body.confidence });
  });

  it.each([
    ['text that is not JSON', DEFAULT_KIND_SCHEMA, 'Thirty days.', 'not JSON'],
    ['no structured', DEFAULT_KIND_SCHEMA, reply({ confidence: 0.5 }), 'no "structured"'],
    ['no confidence', DEFAULT_KIND_SCHEMA, reply({ structured: { summary: 's', facts: [] } }), 'no numeric "confidence"'],
    ['a confidence as a string', DEFAULT_KIND_SCHEMA, reply({ structured: { summary: 's', facts: [] }, confidence: '0.9' }), 'no numeric'],
    ['confidence 2', DEFAULT_KIND_SCHEMA, reply({ structured: { summary: 's', facts: [] }, confidence: 2 }), 'outside [0, 1]'],
    ['confidence -0.1', DEFAULT_KIND_SCHEMA, reply({ structured: { summary: 's', facts: [] }, confidence: -0.1 }), 'outside [0, 1]'],
    ['facts not an array', DEFAULT_KIND_SCHEMA, reply({ structured: { summary: 's', facts: 'x' }, confidence: 0.5 }), '/facts must be array'],
    ['a missing required field', POLICY_SCHEMA, reply({ structured: { applies_to: 'all' }, confidence: 0.5 }), "must have required property 'days'"],
    ['a value outside the enum', POLICY_SCHEMA, reply({ structured: { days: 3, applies_to: 'some' }, confidence: 0.5 }), '/applies_to must be equal to one of the allowed values'],
    ['a negative integer', POLICY_SCHEMA, reply({ structured: { days: -1 }, confidence: 0.5 }), '/days must be >= 0'],
  ])('refuses %s', (_what, schema, content, error) => {
    const result = checkStructured(content, schema);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toContain(error);
  });

  it('validates JSON Schema 2020-12 schemas too', () => {
    const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { tags: { type: 'array', prefixItems: [{ type: 'string' }] } } };
    expect(checkStructured(reply({ structured: { tags: ['a'] }, confidence: 0.5 }), schema).ok).toBe(true);
    expect(checkStructured(reply({ structured: { tags: [1] }, confidence: 0.5 }), schema).ok).toBe(false);
  });
});

describe('isStrictCompatible', () => {
  it.each([
    ['the default schema', DEFAULT_KIND_SCHEMA, true],
    ['every property required, closed', { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false }, true],
    ['an optional property', POLICY_SCHEMA, false],
    ['an open object', { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, false],
    ['a nested open object', { type: 'object', properties: { a: { type: 'object', properties: {} } }, required: ['a'], additionalProperties: false }, false],
    ['oneOf', { oneOf: [{ type: 'string' }, { type: 'number' }] }, false],
    ['a plain string', { type: 'string' }, true],
  ])('%s: %s', (_what, schema, strict) => {
    expect(isStrictCompatible(schema)).toBe(strict);
  });
});

describe('structureCall', () => {
  it('sends the kind schema under "structured", with strict only when strict mode accepts it', () => {
    const input = { topic: 'billing', kind: 'policy', question: 'Grace period?', askedQuestion: 'How many days?', answer: 'Thirty.' };
    const strict = structureCall(input, DEFAULT_KIND_SCHEMA);
    expect(strict).toMatchObject({ name: 'structured_answer', strict: true });
    expect(strict.schema).toEqual({
      type: 'object',
      properties: { structured: DEFAULT_KIND_SCHEMA, confidence: expect.objectContaining({ type: 'number' }) },
      required: ['structured', 'confidence'],
      additionalProperties: false,
    });
    expect(structureCall(input, POLICY_SCHEMA).strict).toBe(false);
    const user = strict.messages[1]!.content;
    expect(JSON.parse(user.slice(user.indexOf('\n') + 1, user.lastIndexOf('\n')))).toEqual({
      topic: 'billing',
      kind: 'policy',
      question: 'Grace period?',
      asked_question: 'How many days?',
      answer: 'Thirty.',
    });
  });
});
