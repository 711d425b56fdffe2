import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT_MS, jsonOf, TEST_TOKEN, useServedWorkspace } from '../support/cli.js';

/** Reviewing beyond accept/reject from the command line: edit before accepting, send back. */
const served = useServedWorkspace();
const { cli } = served;

async function proposal(question: string, answer: string): Promise<{ requestId: string; proposalId: string }> {
  const asked = jsonOf<{ request_id: string }>(await cli('--json', 'ask', question, '--topic', 'deployments', '--because', 'the rollout is stuck', '--expert', 'sam'));
  const reply = jsonOf<{ proposal_id: string }>(await cli('--json', 'reply', 'sam', answer, '--request', asked.request_id));
  return { requestId: asked.request_id, proposalId: reply.proposal_id };
}

describe('expertq accept --answer / return', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('accepts with a corrected answer from a file, keeping the expert’s text', async () => {
    const { requestId, proposalId } = await proposal('How do I roll back?', 'helm rollbak');
    const file = join(served.ws.dir, 'answer.txt');
    writeFileSync(file, 'Run helm rollback <release> <revision>.\n');
    const accepted = await cli('accept', proposalId, '--answer-file', file, '--decided-by', 'rev');
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toMatch(/is accepted \(by rev\)/);
    expect(accepted.stdout).toMatch(/the expert's text is kept: helm rollbak/);
    const stored = await (await fetch(`${served.server.url}/api/v1/proposals/${proposalId}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })).json();
    expect(stored).toMatchObject({ answer: 'Run helm rollback <release> <revision>.', original_answer: 'helm rollbak', provenance: { edited_by: 'rev' } });
    // `expertq request` shows the answer that was delivered, and the expert's own text.
    const shown = await cli('request', requestId);
    expect(shown.stdout).toMatch(/Proposal prop_\S+ \(accepted by rev\)/);
    expect(shown.stdout).toMatch(/Answer from Sam Okafor: Run helm rollback <release> <revision>\./);
    expect(shown.stdout).toMatch(/\(edited; the expert wrote: helm rollbak\)/);
  });

  it('sends a proposal back; the expert is asked again with the instructions', async () => {
    const { requestId, proposalId } = await proposal('Which namespace?', 'prod');
    const back = await cli('return', proposalId, '--instructions', 'Which cluster, too?', '--decided-by', 'rev');
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/sent back to Sam Okafor \(by rev\)/);
    const message = await served.server.waitForMessage((m) => m.includes('Which cluster, too?'));
    expect(message).toMatch(/A reviewer sent your answer back \("prod"\) and asks: Which cluster, too\?/);
    const again = await cli('return', proposalId, '--instructions', 'again', '--decided-by', 'rev');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already sent back by rev; nothing changed/);
    const request = jsonOf<{ status: string }>(await cli('--json', 'request', requestId));
    expect(request.status).toBe('asked');
  });

  it('refuses --answer with --answer-file, and the answering expert deciding (409)', async () => {
    const { proposalId } = await proposal('Which region?', 'eu-west-1');
    const both = await cli('accept', proposalId, '--answer', 'a', '--answer-file', 'b');
    expect(both.code).toBe(2);
    const self = await cli('accept', proposalId, '--decided-by', 'sam');
    expect(self.code).toBe(1);
    expect(self.stderr).toMatch(/409 conflict: Sam Okafor answered this proposal and cannot decide it/);
  });
});
