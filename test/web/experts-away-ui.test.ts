import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, signIn, TIMEOUT, useBrowserServer } from '../support/browser.js';

/** The Experts page sets an expert away with a delegate and a note, shows the spell, and ends it. */
describe.runIf(HAVE_CHROMIUM)('experts page: away', { timeout: TIMEOUT }, () => {
  const served = useBrowserServer();

  it('an admin sets Dana away with Lee as delegate: her open question moves to Lee, the row says so, and End away brings her back', async () => {
    const api = served.api();
    const asked = await api('POST', '/requests', {
      consumer_id: 'billing-bot', topic: 'refunds', question: 'Which template do refunds use?', context: { asked_because: 'the runbook is silent' },
    });
    const id = asked.body.request_id as string;
    await expect.poll(async () => (await api('GET', `/requests/${id}`)).body.asks.map((a: { expert_id: string; state: string }) => `${a.expert_id}:${a.state}`)).toEqual(['dana:open']);

    const page = await served.page();
    await signIn(page, served.server.url);
    await page.getByRole('link', { name: 'Experts' }).click();
    const dana = page.getByRole('row', { name: /Dana Smith/ });
    await dana.getByRole('button', { name: 'Set Dana Smith away…' }).click();
    const form = dana.getByRole('form', { name: 'Set Dana Smith away' });
    await form.getByText('1 open question will be passed on.').waitFor();
    await form.getByLabel('Delegate').selectOption({ label: 'Lee Chen' });
    await form.getByLabel('Note').fill('Holiday');
    await form.getByRole('button', { name: 'Set away' }).click();

    await dana.getByText('away', { exact: true }).waitFor();
    await dana.getByText(/Lee Chen is asked instead \(Holiday\)/).waitFor();
    const registry = (await api('GET', '/experts')).body.find((e: { id: string }) => e.id === 'dana');
    expect(registry.away).toMatchObject({ delegate_to: 'lee', note: 'Holiday' });
    expect(Date.parse(registry.away.until)).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    expect((await api('GET', `/requests/${id}`)).body.asks.map((a: { expert_id: string; state: string }) => `${a.expert_id}:${a.state}`)).toEqual(['dana:skipped', 'lee:open']);

    await dana.getByRole('button', { name: 'End Dana Smith’s away' }).click();
    await dana.getByText('available', { exact: true }).waitFor();
    expect((await api('GET', '/experts')).body.find((e: { id: string }) => e.id === 'dana').away).toBeNull();
  });
});
