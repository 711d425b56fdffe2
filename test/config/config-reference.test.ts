import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/config-schema.js';
import { referenceRows, renderReference, replaceBlock, SAMPLE_INPUT } from '../../scripts/config-reference-render.mjs';

describe('the configuration reference (docs/configuration.md)', () => {
  const page = readFileSync('docs/configuration.md', 'utf8');

  it('is what the config schema renders: run `npm run docs:config` after changing src/config', () => {
    const rendered = replaceBlock(page, renderReference(configSchema, configSchema.parse(SAMPLE_INPUT)));
    expect(page).toBe(rendered);
  });

  it('describes every key, with the default the service applies', () => {
    const rows = referenceRows(configSchema, configSchema.parse(SAMPLE_INPUT));
    expect(rows.filter((r) => r.description === '').map((r) => r.key)).toEqual([]);
    const byKey = new Map(rows.map((r) => [r.key, r]));
    expect(byKey.get('org.name')?.def).toBe('(required)');
    expect(byKey.get('defaults.escalation_after')?.def).toBe('`2h`');
    expect(byKey.get('review.remind_after')?.def).toBe('`1h`');
    expect(byKey.get('server.port')?.def).toBe('`8776`');
    expect(byKey.get('library.share')?.type).toBe('`all` \\| `same_consumer`');
  });
});
