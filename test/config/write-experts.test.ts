import fc from 'fast-check';
import { parse } from 'yaml';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExpertEntry } from '../../src/config/expert-schema.js';
import { replaceExpertsText, writeExpertsSection } from '../../src/config/write-experts.js';

const HEAD = `# expertq config
org:
  name: Acme          # shown to experts
  timezone: UTC

defaults:
  escalation_after: 2h        # re-ask after this long
  quiet_hours: ["22:00", "07:00"]

`;
const TAIL = `
# Where a topic goes when nothing matches.
topics:
  security: { fallback: sam }   # flow map stays a flow map
`;
const DANA = `  - id: dana
    name: Dana Smith
    topics: [billing, invoices, refunds]   # the big three
    escalation_to: lee
`;
const LEE = `  # Lee covers payments on Fridays too.
  - id: lee
    name:   Lee Chen
    topics: [billing, payments]
`;
const SAM = `  - id: sam
    name: "Sam Okafor"
    topics:
      - deployments
      - on-call
`;
const FILE = `${HEAD}experts:\n${DANA}${LEE}${SAM}${TAIL}`;

const dana: ExpertEntry = { id: 'dana', name: 'Dana Smith', topics: ['billing', 'invoices', 'refunds'], escalation_to: 'lee' };
const lee: ExpertEntry = { id: 'lee', name: 'Lee Chen', topics: ['billing', 'payments'] };
const sam: ExpertEntry = { id: 'sam', name: 'Sam Okafor', topics: ['deployments', 'on-call'] };

describe('writing the experts section', () => {
  it('changes nothing when nothing changed', () => {
    expect(replaceExpertsText(FILE, [dana, lee, sam])).toBe(FILE);
  });

  it('keeps the exact text of unchanged experts and of every other section when one expert changes', () => {
    const text = replaceExpertsText(FILE, [dana, { ...lee, topics: ['billing', 'payments', 'tax'] }, sam]);
    expect(text.startsWith(`${HEAD}experts:\n${DANA}`)).toBe(true);
    expect(text.endsWith(`${SAM}${TAIL}`)).toBe(true);
    // The changed entry keeps its comment and the file's flow style for topics.
    expect(text).toContain('  # Lee covers payments on Fridays too.\n  - id: lee\n    name: Lee Chen\n    topics: [billing, payments, tax]\n');
    expect(parse(text).experts[1]).toEqual({ id: 'lee', name: 'Lee Chen', topics: ['billing', 'payments', 'tax'] });
  });

  it('adds, removes and reorders without touching the entries that stay', () => {
    const ravi: ExpertEntry = { id: 'ravi', name: 'Ravi Patel', topics: ['tax'], escalation_to: 'sam' };
    const text = replaceExpertsText(FILE, [sam, ravi, dana]);
    expect(text).toBe(`${HEAD}experts:\n${SAM}  - id: ravi\n    name: Ravi Patel\n    topics: [tax]\n    escalation_to: sam\n${DANA}${TAIL}`);
  });

  it('replaces an empty or flow list, or a missing section, without touching the rest', () => {
    const flow = `${HEAD}experts: []   # none yet\n${TAIL}`;
    const text = replaceExpertsText(flow, [lee]);
    expect(text.startsWith(HEAD)).toBe(true);
    expect(text.endsWith(`   # none yet\n${TAIL}`)).toBe(true);
    expect(parse(text).experts).toEqual([lee]);

    const missing = replaceExpertsText(`${HEAD}${TAIL}`, [lee]);
    expect(missing.startsWith(`${HEAD}${TAIL}`)).toBe(true);
    expect(parse(missing).experts).toEqual([lee]);

    const emptied = replaceExpertsText(FILE, []);
    expect(emptied).toBe(`${HEAD}experts: []\n${TAIL}`);
  });

  it('any edit keeps every unchanged entry byte for byte and reads back as what was written', () => {
    const names = fc.constantFrom('Dana Smith', 'Lee Chen', 'Sam Okafor', 'Ravi: "the tax one"', 'Zoë #1');
    const topic = fc.constantFrom('billing', 'payments', 'tax', 'on-call', 'a b', 'x: y');
    const pool = [dana, lee, sam];
    const edit = fc.record({
      keep: fc.subarray([0, 1, 2]),
      changed: fc.option(fc.record({ name: names, topics: fc.uniqueArray(topic, { minLength: 1, maxLength: 3 }) }), { nil: undefined }),
      added: fc.option(fc.record({ name: names, topics: fc.uniqueArray(topic, { minLength: 1, maxLength: 3 }) }), { nil: undefined }),
    });
    fc.assert(
      fc.property(edit, ({ keep, changed, added }) => {
        const experts: ExpertEntry[] = keep.map((i) => ({ ...pool[i]! }));
        // Escalation targets must exist; drop the ones whose target went.
        for (const e of experts) if (e.escalation_to && !keep.some((i) => pool[i]!.id === e.escalation_to)) delete e.escalation_to;
        if (changed && experts.length > 0) Object.assign(experts[0]!, changed);
        if (added) experts.push({ id: 'new', ...added });
        const text = replaceExpertsText(FILE, experts);
        expect(parse(text).experts ?? []).toEqual(experts.map((e) => ({ ...e })));
        expect(text.startsWith(HEAD)).toBe(true);
        expect(text.endsWith(TAIL)).toBe(true);
        const blocks: Record<string, string> = { dana: DANA, lee: LEE, sam: SAM };
        for (const e of experts) {
          const original = pool.find((p) => p.id === e.id);
          if (original && JSON.stringify(original) === JSON.stringify(e)) expect(text).toContain(blocks[e.id]);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('writing the file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'expertq-write-experts-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the file mode (a 0640 config stays 0640) and leaves an unchanged file untouched', () => {
    const file = join(dir, 'service.yaml');
    writeFileSync(file, FILE);
    chmodSync(file, 0o640);
    const inode = statSync(file).ino;
    writeExpertsSection(file, [dana, lee, sam]);
    expect(statSync(file).ino).toBe(inode); // not rewritten at all
    writeExpertsSection(file, [dana, lee]);
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readFileSync(file, 'utf8')).toBe(`${HEAD}experts:\n${DANA}${LEE}${TAIL}`);
    expect(readdirSync(dir)).toEqual(['service.yaml']); // no temp file left beside it
  });

  it('writes through a symlink: the link stays a link and the file it points to changes', () => {
    mkdirSync(join(dir, 'real'));
    const real = join(dir, 'real', 'service.yaml');
    writeFileSync(real, FILE);
    const link = join(dir, 'service.yaml');
    symlinkSync(real, link);
    writeExpertsSection(link, [dana, sam]);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe(`${HEAD}experts:\n${DANA}${SAM}${TAIL}`);
  });
});
