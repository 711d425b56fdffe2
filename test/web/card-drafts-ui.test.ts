import { describe, expect, it } from 'vitest';
import { card, HAVE_CHROMIUM, propose, signIn, TIMEOUT, useBrowserServer } from '../support/browser.js';

/**
 * What a reviewer has typed on a card stays put: while the list changes under it (proposals arrive
 * and leave live) and when a decision cannot be sent (the card comes back as it was).
 */
describe.runIf(HAVE_CHROMIUM)('review UI: drafts on a card', { timeout: TIMEOUT }, () => {
  const served = useBrowserServer();
  const api = (method: string, path: string, body?: unknown) => served.api()(method, path, body);

  it('keeps the note, the edited answer and the reject reason while proposals arrive and leave', async () => {
    const leaving = await propose(api, 'Which cost centre pays for on-call pizza?');
    const noted = await propose(api, 'Who signs off a credit note above 1000 EUR?');
    const edited = await propose(api, 'How long are payment reminders kept?', { answer: 'six yeras' });
    const page = await served.page();
    await signIn(page, served.server.url);

    const a = card(page, noted.question);
    await a.getByLabel(/^Note/).fill('Checked with finance.');
    const b = card(page, edited.question);
    await b.getByRole('button', { name: 'Edit the answer before accepting' }).click();
    await b.getByLabel(/Answer to deliver/).fill('Six years.');
    await a.getByRole('button', { name: /^Reject…/ }).click();
    await a.getByLabel(/Reason for rejecting/).fill('Ask the controller instead.');
    expect(await a.locator('.position').textContent()).toBe('2 of 3');

    // One proposal arrives, another is decided elsewhere: the list re-renders live around the drafts.
    const arriving = await propose(api, 'Which ledger books card fees?');
    await expect.poll(() => card(page, arriving.question).count()).toBe(1);
    const decided = await api('POST', `/proposals/${leaving.proposalId}/accept`, { decided_by: 'Someone Else' });
    expect(decided.status).toBe(200);
    await expect.poll(() => card(page, leaving.question).count()).toBe(0);
    await expect.poll(() => a.locator('.position').textContent()).toBe('1 of 3');

    expect(await a.getByLabel(/Reason for rejecting/).inputValue()).toBe('Ask the controller instead.');
    expect(await b.getByLabel(/Answer to deliver/).inputValue()).toBe('Six years.');
    expect(await b.getByRole('button', { name: /^Accept edited/ }).count()).toBe(1);
    await a.getByRole('button', { name: /^Cancel/ }).click();
    expect(await a.getByLabel(/^Note/).inputValue()).toBe('Checked with finance.');
    // The reason typed before cancelling is still there when the reviewer comes back to it.
    await a.getByRole('button', { name: /^Reject…/ }).click();
    expect(await a.getByLabel(/Reason for rejecting/).inputValue()).toBe('Ask the controller instead.');
  });

  it('a decision that cannot be sent brings the card back with the note and the edit as they were', async () => {
    const proposed = await propose(api, 'What is the dunning fee for a second reminder?', { answer: 'five eur' });
    const page = await served.page();
    await signIn(page, served.server.url);
    await expect.poll(() => page.getByText('Live', { exact: true }).count()).toBe(1);
    const c = card(page, proposed.question);
    await c.getByRole('button', { name: 'Edit the answer before accepting' }).click();
    await c.getByLabel(/Answer to deliver/).fill('Five euros.');
    await c.getByLabel(/^Note/).fill('Fee table of 2024.');

    await served.stopServer();
    await c.getByRole('button', { name: /^Accept edited/ }).click();
    await page.getByLabel('Your name').fill('Pat Reviewer');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'Could not accept' }).count()).toBe(1);

    expect(await c.getByLabel(/Answer to deliver/).inputValue()).toBe('Five euros.');
    expect(await c.getByLabel(/^Note/).inputValue()).toBe('Fee table of 2024.');
    expect(await c.getByRole('button', { name: /^Accept edited/ }).count()).toBe(1);
    await served.startServer();
  });
});
