import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { BIN, cleanEnv, CLI_TEST_TIMEOUT_MS, jsonOf, loggedErrors, nonJsonLines, osUser, stderrBesideMessages, TEST_TOKEN, useServedWorkspace } from '../support/cli.js';

/**
 * A new user's first session: a consumer asks, the expert is messaged on the console, the expert
 * replies, a reviewer accepts or rejects from the command line. Real `expertq serve`, real CLI.
 */

const QUESTION = 'What is the grace period for disputed invoices?';
const BECAUSE = 'the invoice total does not match the ledger';

const served = useServedWorkspace();
const { cli } = served;

/** `expertq ask` for the billing question; returns the printed request id. */
async function ask(question = QUESTION): Promise<string> {
  const result = await cli('ask', question, '--topic', 'billing', '--because', BECAUSE, '--consumer', 'billing-bot');
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  // A question the library answers is `queued (request proposed)`.
  const match = result.stdout.match(/^(req_\S+) queued(?: \(request proposed\))?$/m);
  expect(match, result.stdout).not.toBeNull();
  return match![1]!;
}

/**
 * Waits for the console ask for a request, then answers it as the expert it went to (billing is
 * shared by Dana and Lee; routing balances between them); returns the proposal id.
 */
async function dueProposal(requestId: string, answer: string): Promise<string> {
  const message = await served.server.waitForMessage((m) => m.includes(requestId));
  const expertId = message.match(/^── message to .+? \((\w+)\)/)![1]!;
  const reply = await cli('reply', expertId, answer, '--request', requestId);
  expect(reply.code, reply.stderr).toBe(0);
  const match = reply.stdout.match(/proposed.*\b(prop_\S+)/);
  expect(match, reply.stdout).not.toBeNull();
  return match![1]!;
}

describe('expertq: ask → reply → queue → accept', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('the server is serving at the configured port', () => {
    expect(served.server.url).toBe(served.ws.url);
  });

  it('runs the whole loop from the command line', async () => {
    const requestId = await ask();

    // The expert's message: addressed to Dana Smith, the six elements in the fixed order.
    const message = await served.server.waitForMessage((m) => m.includes(requestId));
    expect(message).toMatch(/^── message to Dana Smith \(dana\)/);
    const elements = [
      /automated assistant for Acme/,
      new RegExp(`billing-bot.*asking because: ${BECAUSE}`),
      new RegExp(`Question: ${QUESTION.replace('?', '\\?')}`),
      /one- or two-sentence/,
      /recorded with your name \(Dana Smith\)/,
      /\bmute\b.*\bskip\b/,
    ];
    const positions = elements.map((re) => message.search(re));
    expect(positions.every((p) => p >= 0), `${positions.join(',')}\n${message}`).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(message).toMatch(/not a person/);

    const reply = await cli('reply', 'dana', 'Thirty days from the invoice date.', '--request', requestId);
    expect(reply.code).toBe(0);
    expect(reply.stdout).toMatch(/^proposed/);
    const proposalId = reply.stdout.match(/\b(prop_\S+)/)![1]!;

    const queue = await cli('queue');
    expect(queue.code).toBe(0);
    expect(queue.stdout).toContain(proposalId);
    expect(queue.stdout).toContain(QUESTION);
    expect(queue.stdout).toContain('Thirty days from the invoice date.');
    expect(queue.stdout).toContain('Dana Smith');

    const accept = await cli('accept', proposalId, '--decided-by', 'alice');
    expect(accept.code).toBe(0);
    expect(accept.stdout).toContain(proposalId);
    expect(accept.stdout).toMatch(/accepted/);
    expect(accept.stdout).toContain('alice');

    const after = await cli('queue');
    expect(after.code).toBe(0);
    expect(after.stdout.trim()).toBe('Nothing pending');

    const request = await cli('request', requestId);
    expect(request.code).toBe(0);
    expect(request.stdout).toMatch(new RegExp(`^${requestId}\\s+accepted`, 'm'));
    expect(request.stdout).toContain(proposalId);

    const audit = await cli('audit', requestId);
    expect(audit.code).toBe(0);
    const [head, ...lines] = audit.stdout.trim().split('\n');
    expect(head).toMatch(/^AT\s+WHAT\s+BY\s+DETAILS$/);
    const types = lines.map((line) => line.split(/\s+/)[1]);
    expect(types).toEqual(['received', 'routed', 'asked', 'replied', 'proposed', 'decided']);
    expect(audit.stdout).toContain('alice');

    // Dana is told her answer was accepted and attributed to her.
    const notice = await served.server.waitForMessage((m) => m.startsWith('── message to Dana Smith') && /accepted/i.test(m));
    expect(notice).toContain('Dana Smith');
    expect(notice).toContain(QUESTION);
  });

  it('accept --note is recorded with the decision, visible with --json', async () => {
    const proposalId = await dueProposal(await ask('Which ledger wins when totals differ?'), 'The ERP ledger.');
    const accepted = jsonOf<{ status: string; decision: { decided_by: string; note: string | null } }>(
      await cli('--json', 'accept', proposalId, '--decided-by', 'bob', '--note', 'checked with finance'),
    );
    expect(accepted.status).toBe('accepted');
    expect(accepted.decision).toMatchObject({ decided_by: 'bob', note: 'checked with finance' });
  });
});

describe('expertq ask --wait', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  /** Starts `ask --wait` in the background and returns it with the request id the server printed. */
  async function askAndWait(question: string) {
    const waiting = cli('ask', question, '--topic', 'billing', '--because', BECAUSE, '--consumer', 'billing-bot', '--wait');
    const message = await served.server.waitForMessage((m) => m.includes(`Question: ${question}`));
    return { waiting, requestId: message.match(/--request (req_\S+)/)![1]! };
  }

  it('blocks until a reviewer accepts, then prints the answer and exits 0', async () => {
    const { waiting, requestId } = await askAndWait('How long do we keep disputed invoices open?');
    const proposalId = await dueProposal(requestId, 'Until the dispute is closed, at most 90 days.');
    expect((await cli('accept', proposalId, '--decided-by', 'alice')).code).toBe(0);

    const result = await waiting;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`${requestId} accepted`);
    expect(result.stdout).toMatch(/Answer from (Dana Smith|Lee Chen): Until the dispute is closed, at most 90 days\./);
  });

  it('exits 1 when the answer is rejected', async () => {
    const { waiting, requestId } = await askAndWait('Are disputed invoices reported to collections?');
    const proposalId = await dueProposal(requestId, 'Yes, after 30 days.');
    expect((await cli('reject', proposalId, '--reason', 'wrong', '--decided-by', 'alice')).code).toBe(0);

    const result = await waiting;
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${requestId} rejected`);
    expect(result.stdout).not.toContain('Yes, after 30 days.');
    expect(result.stderr).toMatch(/rejected/);
  });
});

describe('expertq reject', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('without --reason is a usage error (exit 2) and leaves the proposal pending', async () => {
    const requestId = await ask('Do disputed invoices accrue late fees?');
    const proposalId = await dueProposal(requestId, 'No, fees pause while disputed.');

    const rejected = await cli('reject', proposalId);
    expect(rejected.code).toBe(2);
    expect(rejected.stderr).toMatch(/--reason/);
    expect(rejected.stdout).toBe('');

    const queue = await cli('queue');
    expect(queue.stdout).toContain(proposalId);
    const request = jsonOf<{ status: string }>(await cli('--json', 'request', requestId));
    expect(request.status).toBe('proposed');
  });

  it('with --reason rejects, and --decided-by defaults to the OS user name', async () => {
    const requestId = await ask('Who approves a credit note over 1000 EUR?');
    const proposalId = await dueProposal(requestId, 'The finance lead.');

    const result = await cli('--json', 'reject', proposalId, '--reason', 'policy changed last month');
    const proposal = jsonOf<{ id: string; status: string; decision: { decided_by: string; reason: string } }>(result);
    expect(proposal.id).toBe(proposalId);
    expect(proposal.status).toBe('rejected');
    expect(proposal.decision.decided_by).toBe(osUser());
    expect(proposal.decision.reason).toBe('policy changed last month');

    const queue = await cli('queue');
    expect(queue.stdout).not.toContain(proposalId);
    const request = await cli('request', requestId);
    expect(request.stdout).toMatch(new RegExp(`^${requestId}\\s+rejected`, 'm'));
    const audit = await cli('audit', requestId);
    expect(audit.stdout).toMatch(/decided\s+reviewer:/);
    expect(audit.stdout).toContain('policy changed last month');
  });

  it('the human output names the decision and its reason', async () => {
    const proposalId = await dueProposal(await ask('Can a disputed invoice be split?'), 'Yes, via two credit notes.');
    const result = await cli('reject', proposalId, '--reason', 'too vague', '--decided-by', 'carol');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`${proposalId} is rejected.*carol.*too vague`));
  });

  it('rejecting an already-accepted proposal leaves it accepted, and says so', async () => {
    const requestId = await ask('Is the grace period in business days?');
    const proposalId = await dueProposal(requestId, 'Calendar days.');
    expect((await cli('accept', proposalId, '--decided-by', 'alice')).code).toBe(0);

    const again = await cli('reject', proposalId, '--reason', 'second thoughts', '--decided-by', 'mallory');
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`expertq: ${proposalId} was already accepted by alice; nothing changed.\n`);
    expect(again.stdout).not.toMatch(/is rejected/);
    // The same decision again changes nothing either, and says so the same way.
    const twice = await cli('accept', proposalId, '--decided-by', 'bob');
    expect(twice.code).toBe(1);
    expect(twice.stderr).toBe(`expertq: ${proposalId} was already accepted by alice; nothing changed.\n`);
    expect(twice.stdout).toBe('');

    const request = await cli('request', requestId);
    expect(request.stdout).toMatch(new RegExp(`^${requestId}\\s+accepted`, 'm'));
    const decided = jsonOf<Array<{ type: string; actor: string }>>(await cli('--json', 'audit', requestId)).filter((e) => e.type === 'decided');
    expect(decided).toHaveLength(1);
    expect(decided[0]!.actor).toContain('alice');
  });
});

describe('the console transport\'s hint', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('answers the ask when pasted into a shell as printed', async () => {
    const requestId = await ask('Are disputed invoices paused for dunning?');
    const message = await served.server.waitForMessage((m) => m.includes(requestId));
    const hint = message.match(/reply with: (.+)$/m)![1]!;
    // No expertq on the PATH: the hint names the binary, the server it listens on, and the config by its absolute path.
    expect(hint).toBe(`node ${BIN} reply ${hint.split(' ')[3]} "<answer>" --request ${requestId} --url ${served.ws.url} --config ${served.ws.configFile}`);
    // Pasted in another folder, it still answers this server's ask.
    const pasted = spawnSync('sh', ['-c', hint.replace('<answer>', 'Yes, dunning waits.')], { cwd: tmpdir(), env: cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN }), encoding: 'utf8' });
    expect(pasted.status, pasted.stderr).toBe(0);
    expect(pasted.stdout).toMatch(/^proposed .*prop_/);
  });
});

describe('expertq return on an answer from the library', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('a reworded question gets the accepted answer without a message; sending it back needs no instructions and asks an expert', async () => {
    const first = await ask('How long may a disputed invoice stay open?');
    expect((await cli('accept', await dueProposal(first, 'Sixty days, then finance decides.'), '--decided-by', 'alice')).code).toBe(0);

    const requestId = await ask('For how long can a disputed invoice stay open?');
    const request = jsonOf<{ status: string; proposal: { id: string; answer: string; provenance: { transport: string } } }>(await cli('--json', 'request', requestId));
    expect(request).toMatchObject({ status: 'proposed', proposal: { answer: 'Sixty days, then finance decides.', provenance: { transport: 'library' } } });
    const queue = (await cli('queue')).stdout;
    const entry = queue.slice(queue.indexOf(request.proposal.id));
    expect(entry).toMatch(/^ {2}Reused from the library \(score \d\.\d\d, verified \d{4}-\d\d-\d\d\): no expert was asked\.$/m);
    expect(entry).toContain('  First asked as: How long may a disputed invoice stay open?');

    const returned = await cli('return', request.proposal.id, '--decided-by', 'alice');
    expect(returned.code, returned.stderr).toBe(0);
    expect(returned.stdout).toContain('sent back to the experts (it was a library answer)');
    // Routed as a new request: asked, or held when the file's earlier asks used up the experts' daily caps.
    const audit = jsonOf<Array<{ type: string }>>(await cli('--json', 'audit', requestId)).map((e) => e.type);
    expect(audit.slice(audit.indexOf('reuse_declined'))).toEqual(expect.arrayContaining(['reuse_declined', expect.stringMatching(/^(routed|held)$/)]));
    expect(jsonOf<{ status: string }>(await cli('--json', 'request', requestId)).status).not.toBe('proposed');
  });
});

describe('the server after these sessions', () => {
  it('logged no errors; stdout (a pipe) is one JSON object per line, the readable blocks went to stderr', () => {
    expect(loggedErrors(served.server.stdout())).toEqual([]);
    expect(nonJsonLines(served.server.stdout())).toEqual([]);
    expect(stderrBesideMessages(served.server.stderr())).toBe('');
  });
});
