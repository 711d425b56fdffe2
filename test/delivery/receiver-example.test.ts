import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, ROOT } from '../support/cli.js';

const RECEIVER = join(ROOT, 'examples', 'receiver.mjs');
const SECRET = `whsec_${Buffer.from('expertq receiver example secret!').toString('base64')}`;
let child: ChildProcess | null = null;
afterEach(() => {
  child?.kill('SIGKILL');
  child = null;
});

/** Starts the README's receiver and resolves with its URL once it prints that it listens. */
function startReceiver(port: number): Promise<{ url: string; out: () => string }> {
  child = spawn(process.execPath, [RECEIVER], { env: { ...process.env, EXPERTQ_WEBHOOK_SECRET: SECRET, PORT: String(port) }, cwd: ROOT });
  let out = '';
  return new Promise((resolve, reject) => {
    child!.stdout!.on('data', (d) => {
      out += String(d);
      if (out.includes('receiving webhooks on')) resolve({ url: `http://127.0.0.1:${port}`, out: () => out });
    });
    child!.once('exit', (code) => reject(new Error(`receiver exited ${code}`)));
  });
}

describe('the README webhook receiver (examples/receiver.mjs)', () => {
  it('accepts a correctly signed delivery whose body is split inside a multi-byte character', async () => {
    const { url, out } = await startReceiver(await freePort());
    const body = Buffer.from(JSON.stringify({ event: 'proposal_accepted', id: 'evt_1', proposal: { answer: 'The fee is 5 € per invoice.' } }));
    const id = 'evt_1';
    const now = new Date();
    const signature = new Webhook(SECRET).sign(id, now, body.toString('utf8'));
    const split = body.indexOf(Buffer.from('€')) + 1; // inside the three bytes of €
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': body.length, 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature },
      }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.write(body.subarray(0, split));
      setImmediate(() => req.end(body.subarray(split)));
    });
    expect(status).toBe(204);
    await new Promise((resolve) => setImmediate(resolve));
    expect(out()).toMatch(/receiving webhooks on http:\/\/localhost:\d+/);
  });

  it('without the secret variable says so in one line and exits non-zero', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const env = { ...process.env };
      delete env.EXPERTQ_WEBHOOK_SECRET;
      const c = spawn(process.execPath, [RECEIVER], { env, cwd: ROOT });
      let stderr = '';
      c.stderr.on('data', (d) => (stderr += String(d)));
      c.on('exit', (code) => resolve({ code, stderr }));
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual(['Set EXPERTQ_WEBHOOK_SECRET to the whsec_… secret that POST /consumers answered.']);
  });

  it('is the receiver the README and docs/webhooks.md show, character for character', () => {
    const example = readFileSync(RECEIVER, 'utf8');
    for (const doc of ['README.md', join('docs', 'webhooks.md')]) {
      const blocks = [...readFileSync(join(ROOT, doc), 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
      expect(blocks, doc).toContain(example);
    }
  });
});
