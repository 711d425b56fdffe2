import { afterEach, describe, expect, it } from 'vitest';
import { HOUR, MINUTE, schedulerKit, type SchedulerKit } from '../support/scheduler-kit.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

let k: SchedulerKit;
let receiver: WebhookReceiver;
afterEach(async () => {
  await k.close();
  await receiver?.stop();
});

/** A kit whose consumer `billing-bot` receives webhooks, with `defaults` as given. */
async function kitWithConsumer(defaults: Record<string, unknown>): Promise<SchedulerKit> {
  k = await schedulerKit({ config: { server: { allow_private_webhooks: true }, defaults } });
  receiver = new WebhookReceiver();
  const url = await receiver.start();
  const res = await k.t.call('POST', '/api/v1/consumers', { id: 'billing-bot', handles_kinds: ['other'], delivery: { type: 'webhook', url } });
  expect(res.status).toBe(201);
  return k;
}

describe('defaults.warn_before: request_expiring ahead of giving up', () => {
  it('sends one signed request_expiring at gives_up_at - warn_before, never again (restart included), then gives up as usual', async () => {
    await kitWithConsumer({ warn_before: '2h' });
    const id = await k.submit(); // 10:00; gives up 2026-11-24T10:00Z; warned at 08:00Z

    expect((await k.tickAt('2026-11-24T07:59:59.999Z')).warned).toBe(0);
    expect(receiver.events()).toEqual([]);

    expect((await k.tickAt('2026-11-24T08:00:00.000Z')).warned).toBe(1);
    await receiver.waitFor(1);
    const [hook] = receiver.received;
    expect(hook!.json).toEqual({
      event: 'request_expiring',
      id: expect.stringMatching(/^evt_/),
      created_at: '2026-11-24T08:00:00.000Z',
      request_id: id,
      gives_up_at: '2026-11-24T10:00:00.000Z',
      waiting: null, // an ask is out (escalated to Lee at 12:00 the day before)
    });
    expect(hook!.headers['webhook-id']).toBe(hook!.json.id);
    expect(hook!.headers['webhook-signature']).toMatch(/^v1,/);
    expect(await k.auditOf(id, 'expiring')).toEqual([
      expect.objectContaining({ at: '2026-11-24T08:00:00.000Z', actor: 'system', data: { gives_up_at: '2026-11-24T10:00:00.000Z', in: '2h' } }),
    ]);

    expect((await k.tickAt('2026-11-24T08:30:00.000Z')).warned).toBe(0);
    await k.restart({ server: { allow_private_webhooks: true }, defaults: { warn_before: '2h' } });
    expect((await k.tickAt('2026-11-24T09:00:00.000Z')).warned).toBe(0);

    expect((await k.tickAt('2026-11-24T10:00:00.000Z')).timed_out).toBe(1);
    await receiver.waitFor(2);
    expect(receiver.events()).toEqual(['request_expiring', 'request_failed']);
  });

  it('says why the request waits when nobody is asked at that moment', async () => {
    await kitWithConsumer({ warn_before: '30m', give_up_after: '4h' });
    // The request's own quiet hours began at 10:00: Dana's ask waits for them to end, after it gives up.
    const id = await k.submit({ target_experts: ['dana'], routing_policy: { quiet_hours: ['10:00', '20:00'] } });
    expect((await k.request(id)).waiting).toMatchObject({ why: 'quiet_hours', until: '2026-11-23T20:00:00.000Z' });

    expect((await k.tickAt('2026-11-23T13:30:00.000Z')).warned).toBe(1);
    await receiver.waitFor(1);
    expect(receiver.received[0]!.json).toMatchObject({
      event: 'request_expiring',
      gives_up_at: '2026-11-23T14:00:00.000Z',
      waiting: { why: 'quiet_hours', expert_id: 'dana', until: '2026-11-23T20:00:00.000Z' },
    });
  });

  it('warns no request already answered, cancelled or failed', async () => {
    await kitWithConsumer({ warn_before: '1h', give_up_after: '3h' });
    const answered = await k.submit();
    const cancelled = await k.submit({ topic: 'deployments', question: 'Which cluster?' });
    expect((await k.reply('dana', 'Thirty days.', answered)).body.outcome).toBe('proposed');
    expect((await k.t.call('POST', `/api/v1/requests/${cancelled}/cancel`, {})).status).toBe(200);

    expect((await k.tickAt('2026-11-23T12:00:00.000Z')).warned).toBe(0);
    expect((await k.tickAt('2026-11-23T12:59:00.000Z')).warned).toBe(0);
    expect(receiver.events()).toEqual(['request_failed']); // the cancel, nothing else
    expect((await k.events(answered)).map((e) => e.type)).not.toContain('request_expiring');
    expect((await k.events(cancelled)).map((e) => e.type)).toEqual(['request_failed']);
  });

  it('sends nothing when warn_before is not set', async () => {
    await kitWithConsumer({ give_up_after: '1h' });
    const id = await k.submit();
    for (const at of [10 * MINUTE, 30 * MINUTE, 59 * MINUTE]) expect((await k.tickAt(Date.parse('2026-11-23T10:00:00Z') + at)).warned).toBe(0);
    expect(await k.events(id)).toEqual([]);
    expect((await k.tickAfter(HOUR)).timed_out).toBe(1);
  });
});
