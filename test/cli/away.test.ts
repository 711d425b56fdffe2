import { describe, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT_MS, jsonOf, useServedWorkspace } from '../support/cli.js';

/** `expertq away` and `expertq back` against a real server: Dana goes on holiday and Lee stands in. */

const served = useServedWorkspace();
const { cli } = served;

async function expertLine(id: string): Promise<string> {
  const result = await cli('experts');
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.split('\n').find((l) => l.startsWith(`${id} `))!;
}

describe('expertq away / back', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('sets an expert away with a delegate, moves her open question to him, and ends the spell with back', async () => {
    const asked = await cli('--json', 'ask', 'Which invoice template do refunds use?', '--topic', 'refunds', '--because', 'the runbook is silent', '--consumer', 'ops-bot');
    const { request_id: id } = jsonOf<{ request_id: string }>(asked);
    await served.server.waitForMessage((m) => m.startsWith('── message to Dana Smith') && m.includes(id));

    const away = await cli('away', 'dana', '--until', '3d', '--delegate', 'lee', '--note', 'Holiday');
    expect(away.code, away.stderr).toBe(0);
    expect(away.stdout).toMatch(/^dana is away until .+; lee is asked first meanwhile\. Open questions were passed on; `expertq back dana` ends it early\.$/m);
    await served.server.waitForMessage((m) => m.startsWith('── message to Lee Chen') && m.includes(id));
    expect(await expertLine('dana')).toMatch(/\saway until .+ UTC$/);
    expect((await cli('experts')).stdout).toMatch(/^dana is away until .+ UTC; lee is asked first meanwhile \(Holiday\)$/m);

    const json = jsonOf<Array<{ id: string; away: { delegate_to: string; note: string } | null }>>(await cli('--json', 'experts'));
    expect(json.find((e) => e.id === 'dana')!.away).toMatchObject({ delegate_to: 'lee', note: 'Holiday' });

    const back = await cli('back', 'dana');
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout.trim()).toBe('dana is back: questions can go to them again.');
    expect(await expertLine('dana')).toMatch(/\savailable$/);
  });

  it('says what is wrong with a time that is not in the future, and needs --until', async () => {
    const past = await cli('away', 'dana', '--until', '2020-01-01');
    expect(past.code).not.toBe(0);
    expect(past.stderr).toMatch(/until.*not in the future/);
    const missing = await cli('away', 'dana');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/--until/);
  });
});
