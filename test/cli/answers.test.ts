import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT_MS, jsonOf, useServedWorkspace } from '../support/cli.js';

/** The answer library from the command line: import a FAQ, search it, read an entry, retire it. Real server, real CLI. */

const served = useServedWorkspace();
const { cli } = served;

const line = (entry: Record<string, unknown>) => JSON.stringify({ topic: 'billing', expert_id: 'dana', ...entry });

function jsonl(name: string, lines: string[]): string {
  const file = join(served.ws.dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('expertq answers', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('an import with a bad line says which lines are wrong and imports nothing', async () => {
    const file = jsonl('bad.jsonl', [
      line({ question: 'How long is the refund window?', answer: 'Thirty days.' }),
      '{not json',
      '',
      line({ question: 'Who approves credit notes?', answer: 'Finance.', expert_id: 'nobody' }),
      line({ answer: 'No question.' }),
    ]);
    // Every wrong line is named, in file order, whatever is wrong with it: not JSON, an unknown expert, a missing field.
    const parse = await cli('answers', 'import', file);
    expect(parse.code).toBe(1);
    expect(parse.stderr).toMatch(/Nothing imported from .*bad\.jsonl: 3 lines are wrong\.\n\s+line 2: not JSON \(.*\)\n\s+line 4: expert_id: no expert "nobody" in the registry\n\s+line 5: question: .+\n$/);
    expect((await cli('answers')).stdout).toMatch(/^No answers$/m);

    const fixed = jsonl('bad2.jsonl', [
      line({ question: 'How long is the refund window?', answer: 'Thirty days.' }),
      '',
      line({ question: 'Who approves credit notes?', answer: 'Finance.', expert_id: 'nobody' }),
      line({ answer: 'No question.' }),
    ]);
    const server = await cli('answers', 'import', fixed);
    expect(server.code).toBe(1);
    expect(server.stderr).toMatch(/2 lines are wrong\.\n\s+line 3: expert_id: no expert "nobody" in the registry\n\s+line 4: question: /);
    // A line with several problems is one line, its problems together.
    const both = await cli('answers', 'import', jsonl('bad3.jsonl', [line({ question: 'Q?', answer: 'A.' }), '', JSON.stringify({ topic: 'billing', expert_id: 'dana' })]));
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/one line is wrong\.\n\s+line 3: question: .+; answer: .+\n$/);
    // A long list stops after 100 lines and says how many more.
    const many = await cli('answers', 'import', jsonl('bad4.jsonl', Array.from({ length: 105 }, (_, i) => `{bad ${i}`)));
    expect(many.code).toBe(1);
    expect(many.stderr).toMatch(/105 lines are wrong\./);
    expect(many.stderr).toMatch(/line 100: not JSON .*\n\s+… and 5 more lines\.\n$/);
    expect(many.stderr).not.toMatch(/line 101:/);
    expect((await cli('answers')).stdout).toMatch(/^No answers$/m);
  });

  it('imports a FAQ, finds it by search best match first, shows one entry and retires it once', async () => {
    const file = jsonl('faq.jsonl', [
      line({ question: 'How long is the refund window?', answer: 'Thirty days from the invoice date.', verified_at: '2026-11-01T00:00:00.000Z' }),
      line({ question: 'Which currency do invoices use?', answer: 'Euros.' }),
      line({ topic: 'payments', kind: 'policy', question: 'Can a refund be split across cards?', answer: 'No, one card per refund.' }),
    ]);
    const imported = await cli('answers', 'import', file);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/Imported 3 entries/);

    const search = await cli('answers', 'refund', 'window');
    expect(search.code, search.stderr).toBe(0);
    const rows = search.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/ANSWER\s+STATUS\s+TOPIC\s+EXPERT\s+SCORE\s+QUESTION/);
    expect(rows[1]).toMatch(/ans_\S+\s+active\s+billing\s+Dana Smith\s+[\d.]+\s+How long is the refund window\?/);
    expect(rows[2]).toMatch(/Can a refund be split/);
    expect(rows).toHaveLength(3);
    expect((await cli('answers', 'refund', '--topic', 'payments')).stdout).not.toMatch(/refund window/);
    expect((await cli('answers', 'zebra')).stdout).toMatch(/No answers match "zebra"/);

    const id = rows[1]!.split(/\s+/)[0]!;
    const shown = await cli('answer', id);
    expect(shown.stdout).toMatch(new RegExp(`^${id}\\s+active`));
    expect(shown.stdout).toMatch(/Answer from Dana Smith: Thirty days from the invoice date\./);
    expect(shown.stdout).toMatch(/\(curated\)/);

    const retired = await cli('retire', id, '--reason', 'Now 45 days', '--decided-by', 'rita');
    expect(retired.code, retired.stderr).toBe(0);
    expect(retired.stdout).toMatch(new RegExp(`${id} retired \\(by rita\\)`));
    const again = await cli('retire', id, '--reason', 'again');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already retired by rita: Now 45 days; nothing changed/);
    expect(jsonOf<{ status: string }>(await cli('--json', 'answer', id)).status).toBe('retired');
    expect((await cli('answers', '--status', 'retired')).stdout).toContain(id);
    expect((await cli('answers', '--status', 'bogus')).code).toBe(2);
  });

  it('ask says when the library answered the question: the request is proposed, waiting for a reviewer', async () => {
    expect((await cli('answers', 'import', jsonl('currency.jsonl', [line({ question: 'Which currency do our invoices use?', answer: 'Euros.' })]))).code).toBe(0);
    const asked = await cli('ask', 'Which currency do invoices use?', '--topic', 'billing', '--because', 'a customer asks');
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toMatch(/^req_\S+ queued \(request proposed\)$/m);
    const json = jsonOf<{ status: string; request_status: string }>(await cli('--json', 'ask', 'Which currency do our invoices use, please?', '--topic', 'billing', '--because', 'a customer asks'));
    expect(json).toMatchObject({ status: 'queued', request_status: 'proposed' });
  });
});
