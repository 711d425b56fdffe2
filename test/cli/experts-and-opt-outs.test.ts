import { describe, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT_MS, jsonOf, loggedErrors, nonJsonLines, stderrBesideMessages, useServedWorkspace } from '../support/cli.js';

/** `expertq experts` with live counts, and the experts' `skip`, `mute` and `unmute` replies. */

const served = useServedWorkspace();
const { cli } = served;

/** The `expertq experts` line for one expert. */
async function expertLine(id: string): Promise<string> {
  const result = await cli('experts');
  expect(result.code, result.stderr).toBe(0);
  const line = result.stdout.split('\n').find((l) => l.startsWith(`${id} `));
  expect(line, result.stdout).toBeDefined();
  return line!;
}

async function ask(question: string, topic: string): Promise<{ id: string; status: string; line: string }> {
  const result = await cli('ask', question, '--topic', topic, '--because', 'the runbook is silent', '--consumer', 'ops-bot');
  // A request that could not be routed is an operation that failed: exit 1, said once on stderr.
  const line = (result.stdout || result.stderr.replace(/^expertq: /, '')).trim();
  const match = line.match(/^(req_\S+) (\w+)/m);
  expect(match, `${result.stdout}${result.stderr}`).not.toBeNull();
  if (match![2] === 'failed') expect(result.stdout).toBe('');
  expect(result.code, result.stderr).toBe(match![2] === 'failed' ? 1 : 0);
  return { id: match![1]!, status: match![2]!, line };
}

async function status(requestId: string): Promise<{ status: string; reason: { code: string } | null }> {
  return jsonOf(await cli('--json', 'request', requestId));
}

describe('expertq experts', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('lists every configured expert with name, open asks, asks today and topics', async () => {
    const result = await cli('experts');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^dana\s+Dana Smith\s+0\s+0\s+billing, invoices, refunds\s+console\s+available$/m);
    expect(result.stdout).toMatch(/^lee\s+Lee Chen\s+0\s+0\s+billing, payments\s+console\s+available$/m);
    expect(result.stdout).toMatch(/^sam\s+Sam Okafor\s+0\s+0\s+deployments, kubernetes, on-call\s+console\s+available$/m);
    expect(result.stdout).toMatch(/^EXPERT\s+NAME\s+OPEN\s+TODAY\s+TOPICS\s+CHANNELS\s+STATE$/m);
    expect(result.stdout).not.toMatch(/muted/);
  });

  it('counts an open ask against the expert who got it, and releases it on the answer', async () => {
    const request = await ask('Which invoice template do refunds use?', 'refunds');
    expect(request.status).toBe('queued');
    await served.server.waitForMessage((m) => m.startsWith('── message to Dana Smith') && m.includes(request.id));
    expect(await expertLine('dana')).toMatch(/\s1\s+1\s+\S.*\s(available|muted)$/);
    expect(await expertLine('lee')).toMatch(/\s0\s+0\s+\S.*\s(available|muted)$/);

    expect((await cli('reply', 'dana', 'The credit-note template.')).code).toBe(0); // no --request: her oldest open ask
    expect(await expertLine('dana')).toMatch(/\s0\s+1\s+\S.*\s(available|muted)$/);
    expect((await status(request.id)).status).toBe('proposed');
  });

  it('--json gives the machine-readable registry', async () => {
    const experts = jsonOf<Array<{ id: string; name: string; muted: boolean; open_asks: number; asks_today: number }>>(await cli('--json', 'experts'));
    expect(experts.map((e) => e.id)).toEqual(['dana', 'lee', 'sam']);
    expect(experts.every((e) => typeof e.open_asks === 'number' && typeof e.asks_today === 'number')).toBe(true);
  });
});

describe('opt-outs from the command line', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('`skip` passes the question to the escalation target; the skipper stays available', async () => {
    const request = await ask('Can refunds go to a different card?', 'refunds');
    await served.server.waitForMessage((m) => m.startsWith('── message to Dana Smith') && m.includes(request.id));

    const skip = await cli('reply', 'dana', 'skip', '--request', request.id);
    expect(skip.code, skip.stderr).toBe(0);
    expect(skip.stdout).toMatch(/^skipped/);

    // Lee (Dana's escalation_to) gets the same six-element ask for the same request.
    const toLee = await served.server.waitForMessage((m) => m.startsWith('── message to Lee Chen (lee)') && m.includes(request.id));
    expect(toLee).toMatch(/automated assistant[\s\S]*asking because: the runbook is silent[\s\S]*Question: Can refunds go to a different card\?/);
    expect(toLee).toMatch(/recorded with your name \(Lee Chen\)/);
    expect((await status(request.id)).status).toBe('escalated');
    expect(await expertLine('dana')).not.toMatch(/muted/);

    const answer = await cli('reply', 'lee', 'Only to the original card.', '--request', request.id);
    expect(answer.stdout).toMatch(/^proposed/);
    const queue = await cli('queue');
    expect(queue.stdout).toMatch(/Answer from Lee Chen: Only to the original card\./);
  });

  it('`mute` stops asks to the expert until `expertq unmute`', async () => {
    const first = await ask('How do we roll back a failed deployment?', 'deployments');
    await served.server.waitForMessage((m) => m.startsWith('── message to Sam Okafor (sam)') && m.includes(first.id));

    const mute = await cli('reply', 'sam', 'MUTE', '--request', first.id); // case-insensitive
    expect(mute.code, mute.stderr).toBe(0);
    expect(mute.stdout).toMatch(/^muted/);
    expect(await expertLine('sam')).toMatch(/\s0\s+1\s+\S.*\smuted$/);
    // Sam has no escalation target, so the consumer is told the expert declined.
    expect(await status(first.id)).toMatchObject({ status: 'failed', reason: { code: 'expert_declined' } });

    // Nobody else handles deployments: the next question fails at once instead of reaching Sam.
    const second = await ask('Who approves a kubernetes upgrade?', 'kubernetes');
    expect(second.status).toBe('failed');
    expect(second.line).toMatch(/no_expert_found/);
    expect(served.server.messages().filter((m) => m.includes(second.id))).toEqual([]);

    const unmute = await cli('unmute', 'sam');
    expect(unmute.code, unmute.stderr).toBe(0);
    expect(unmute.stdout).toMatch(/sam is not muted/);
    expect(await expertLine('sam')).not.toMatch(/muted/);

    const third = await ask('Who approves a kubernetes upgrade?', 'kubernetes');
    expect(third.status).toBe('queued');
    await served.server.waitForMessage((m) => m.startsWith('── message to Sam Okafor (sam)') && m.includes(third.id));
    expect((await cli('reply', 'sam', 'The platform lead.', '--request', third.id)).stdout).toMatch(/^proposed/);
  });

  it('an `unmute` reply needs no open ask', async () => {
    const current = await ask('Is on-call paged for staging?', 'on-call');
    await served.server.waitForMessage((m) => m.includes(current.id));
    expect((await cli('reply', 'sam', 'mute', '--request', current.id)).stdout).toMatch(/^muted/);
    expect(await expertLine('sam')).toMatch(/\s0\s+\d+\s+\S.*\smuted$/);

    const unmute = await cli('reply', 'sam', 'unmute');
    expect(unmute.code, unmute.stderr).toBe(0);
    expect(unmute.stdout).toMatch(/^unmuted/);
    expect(await expertLine('sam')).not.toMatch(/muted/);
  });

  it('`expertq mute` mutes an expert for them (their open ask passes on); `expertq unmute` undoes it', async () => {
    const current = await ask('Who owns the payments runbook?', 'payments');
    await served.server.waitForMessage((m) => m.startsWith('── message to Lee Chen (lee)') && m.includes(current.id));
    const mute = await cli('mute', 'lee', '--by', 'alice');
    expect(mute.code, mute.stderr).toBe(0);
    expect(mute.stdout).toBe('lee is muted: no more asks until `expertq unmute lee`; open asks were passed on.\n');
    expect(await expertLine('lee')).toMatch(/\s0\s+\d+\s+\S.*\smuted$/);
    const audit = await cli('audit', current.id);
    expect(audit.stdout).toMatch(/\smuted\s+reviewer:alice\s/);
    expect((await cli('unmute', 'lee')).stdout).toBe('lee is not muted\n');
  });

  it('unmuting an unknown expert is a 404', async () => {
    const result = await cli('unmute', 'nobody');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/404 not_found/);
  });
});

describe('the server after these sessions', () => {
  it('logged no errors; stdout is JSON lines and stderr holds only the readable message blocks', () => {
    expect(loggedErrors(served.server.stdout())).toEqual([]);
    expect(nonJsonLines(served.server.stdout())).toEqual([]);
    expect(stderrBesideMessages(served.server.stderr())).toBe('');
  });
});
