import { describe, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT_MS, TEST_TOKEN, useServedWorkspace } from '../support/cli.js';

/** Reading, cancelling and failing requests, and the registered consumers, from the command line. */

const served = useServedWorkspace();
const { cli } = served;

const count = (text: string, part: string) => text.split(part).length - 1;

async function ask(question: string, topic = 'billing'): Promise<string> {
  const result = await cli('ask', question, '--topic', topic, '--because', 'the runbook is silent');
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.match(/^(req_\S+)/m)![1]!;
}

describe('usage errors in plain words, once, exit 2', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('requests --status with a status that does not exist lists the real ones', async () => {
    const result = await cli('requests', '--status', 'bogus');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(count(result.stderr, "'bogus'")).toBe(1);
    expect(result.stderr).toMatch(/queued, asked, escalated, proposed, accepted, rejected, failed/);
  });

  it.each([
    ['requests', 'abc'],
    ['requests', '0'],
    ['requests', '501'],
    ['requests', '2.5'],
    ['deliveries', 'ten'],
  ])('%s --limit %s', async (command, limit) => {
    const result = await cli(command, '--limit', limit);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/whole number from 1 to 500/);
    expect(result.stderr).not.toMatch(/NaN/);
  });

  it.each([
    ['an empty question', ['', '--topic', 'billing', '--because', 'stuck'], /question/],
    ['a blank question', ['   ', '--topic', 'billing', '--because', 'stuck'], /question/],
    ['an empty --topic', ['Why?', '--topic', '', '--because', 'stuck'], /--topic/],
    ['an empty --because', ['Why?', '--topic', 'billing', '--because', ''], /--because/],
  ])('ask with %s', async (_what, args, names) => {
    const result = await cli('ask', ...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(names);
    expect(result.stderr).toMatch(/must not be empty/);
    expect(result.stderr).not.toMatch(/too_small|Too small|expected string|>=1 characters/i);
  });
});

describe('a question nobody can answer', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('says once that it failed, with the request id, the code and the reason, and exits 1', async () => {
    const result = await cli('ask', 'What is our horoscope?', '--topic', 'astrology', '--because', 'curious');
    expect(result.code).toBe(1);
    const all = result.stdout + result.stderr;
    const id = all.match(/req_\w+/)![0];
    expect(count(all, 'no_expert_found')).toBe(1);
    expect(count(all, id)).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`${id} failed: no_expert_found \\(.+\\)`));
  });
});

describe('expertq cancel', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('cancels an open request and prints its new state', async () => {
    const id = await ask('Can we cancel this one?');
    const result = await cli('cancel', id);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^${id}\\s+failed.*cancelled`, 'm'));
    expect((await cli('request', id)).stdout).toMatch(new RegExp(`^${id}\\s+failed \\(cancelled`, 'm'));
  });

  it('an unknown request exits 1 with the 404', async () => {
    const result = await cli('cancel', 'req_doesnotexist');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/404 not_found: .*req_doesnotexist/);
  });
});

describe('expertq consumers', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('lists registered consumers and removes one', async () => {
    const registered = await fetch(`${served.ws.url}/api/v1/consumers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'ledger-bot', handles_kinds: ['answer', 'runbook'], delivery: { type: 'webhook', url: 'https://93.184.215.14/hooks/expertq' }, auto_accept: true }),
    });
    expect(registered.status, await registered.clone().text()).toBe(201);

    const list = await cli('consumers');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^CONSUMER\s+KINDS\s+AUTO-ACCEPT\s+DELIVERY$/m);
    expect(list.stdout).toMatch(/^ledger-bot\s+answer, runbook\s+yes\s+https:\/\/93\.184\.215\.14\/hooks\/expertq$/m);

    const removed = await cli('consumers', 'remove', 'ledger-bot');
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/ledger-bot/);
    expect((await cli('consumers')).stdout).not.toMatch(/^ledger-bot/m);

    const again = await cli('consumers', 'remove', 'ledger-bot');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/404 not_found/);
  });
});

describe('expertq request after a proposal is sent back', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('says "sent back by", not "rejected by"', async () => {
    const id = await ask('Who signs off refunds over 500 EUR?');
    const message = await served.server.waitForMessage((m) => m.includes(id));
    const expert = message.match(/^── message to .+? \((\w+)\)/)![1]!;
    const reply = await cli('reply', expert, 'The team lead.', '--request', id);
    const proposalId = reply.stdout.match(/\b(prop_\S+)/)![1]!;
    expect((await cli('return', proposalId, '--instructions', 'Name the role and the limit.', '--decided-by', 'alice')).code).toBe(0);

    const shown = await cli('request', id);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`Proposal ${proposalId} (sent back by alice)`);
    expect(shown.stdout).not.toMatch(/rejected by/);
  });
});

describe('topics', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('lists the topics questions can be asked about, with their experts and fallback', async () => {
    const result = await cli('topics');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')[0]).toMatch(/^TOPIC\s+EXPERTS\s+AVAILABLE\s+FALLBACK$/);
    expect(result.stdout).toMatch(/^refunds\s+1\s+1\s+-$/m);
    expect(result.stdout).toMatch(/^security\s+0\s+0\s+sam$/m);
  });
});

describe('a held question says so at once', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('ask prints why it waits and experts shows the expert at their limit, not available', async () => {
    // Sam alone takes kubernetes, three open asks at a time: the fourth is held.
    for (let i = 1; i <= 3; i++) await ask(`Which node pool for job ${i}?`, 'kubernetes');
    const result = await cli('ask', 'Which node pool for job 4?', '--topic', 'kubernetes', '--because', 'the runbook is silent');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^req_\S+ queued\n {2}Waiting: sam is at their limit; the question goes out when they answer an open question\n {2}Gives up: /);
    const experts = await cli('experts');
    expect(experts.stdout).toMatch(/^sam\s+Sam Okafor\s+3\s+3\s+\S.*\sat cap$/m);
  });
});
