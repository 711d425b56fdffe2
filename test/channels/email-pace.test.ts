import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.js';
import { submitBody } from '../support/build-test-app.js';
import { INBOUND_TOKEN, startEmailKit, type EmailKit } from '../support/email-kit.js';
import { FakeClock } from '../support/fake-clock.js';
import { captureLogger } from '../support/capture.js';
import { until } from '../support/until.js';

const EXPERTS = ['dana', 'lee', 'kim'].map((id) => ({ id, name: id, topics: ['billing'], email: `${id}@acme.example`, channels: ['email'] }));

let kit: EmailKit | null = null;
let again: RunningServer | null = null;
afterEach(async () => {
  await again?.close();
  again = null;
  await kit?.close();
  kit = null;
});

/** Submits without waiting for the service to settle: the paced mails are still waiting their turn. */
async function submit(url: string, expert: string): Promise<void> {
  const body = submitBody({ question: `How long does ${expert}'s refund take?`, target_experts: [expert] });
  const res = await fetch(`${url}/api/v1/requests`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBeLessThan(300);
}

describe('the email channel paces its mail', () => {
  it('sends at most max_per_minute; a stop leaves the waiting mails in the outbox, and the next start sends each once', async () => {
    kit = await startEmailKit({ experts: EXPERTS, config: { email: { max_per_minute: 1 } } });
    for (const expert of ['dana', 'lee', 'kim']) await submit(kit.server.url, expert);
    await until(() => kit!.smtp.messages.length === 1, 5_000, 'the first mail went out');

    // One mail a minute: the stop does not wait for the other two, and records nothing against them.
    await kit.server.close();
    expect(kit.smtp.messages).toHaveLength(1);
    expect(kit.logs.lines.filter((l) => /failed/.test(String(l.msg)))).toEqual([]);

    // Restarted on the same database with room to send: the two waiting mails go out once each,
    // after the lease of the stopped process ran out.
    const configFile = join(kit.dir, 'service.yaml');
    const config = parse(readFileSync(configFile, 'utf8')) as { email: Record<string, unknown> };
    config.email.max_per_minute = 600;
    writeFileSync(configFile, stringify(config));
    const clock = new FakeClock(kit.clock.now() + 60_000);
    again = await startServer({ configPath: configFile, transport: 'auto', env: { SMTP_URL: kit.smtp.url, INBOUND_TOKEN }, clock, logger: captureLogger().log, port: 0 });
    await again.service.idle();
    const to = kit.smtp.messages.map((m) => m.envelope.to[0]).sort();
    expect(to).toEqual(['dana@acme.example', 'kim@acme.example', 'lee@acme.example']);
    const list = (await (await fetch(`${again.url}/api/v1/requests?limit=10`)).json()) as { items: Array<{ id: string }> };
    const views = await Promise.all(list.items.map(async (r) => (await (await fetch(`${again!.url}/api/v1/requests/${r.id}`)).json()) as { asked: Array<{ channel: string }> }));
    expect(views.flatMap((v) => v.asked.map((a) => a.channel))).toEqual(['email', 'email', 'email']);
  });
});
