import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';

let t: TestApp;
afterEach(async () => t?.close());

describe('the ask links the page that tells experts how expertq treats their time', () => {
  it('with org.expert_guide_url, the opt-out line ends with the link; without it, the line is as always', async () => {
    t = await buildTestApp({ config: { org: { name: 'Acme', timezone: 'UTC', expert_guide_url: 'https://wiki.acme.test/expertq-and-your-time' } } });
    await t.call('POST', '/api/v1/requests', submitBody());
    const optOut = () => t.messages()[0]!.split('\n').map((line) => line.trim()).find((line) => line.startsWith('Reply `mute`'));
    expect(optOut()).toBe('Reply `mute` to stop receiving questions, or `skip` to pass this one along. How expertq treats your time: https://wiki.acme.test/expertq-and-your-time');
    await t.close();

    t = await buildTestApp();
    await t.call('POST', '/api/v1/requests', submitBody());
    expect(optOut()).toBe('Reply `mute` to stop receiving questions, or `skip` to pass this one along.');
  });
});
