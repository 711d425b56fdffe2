import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
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

/** Starts the docs' receiver and resolves with its URL once it prints that it listens. */
function startReceiver(port: number, env: Record<string, string> = {}): Promise<{ url: string; out: () => string }> {
  const base = { ...process.env };
  delete base.HOST;
  child = spawn(process.execPath, [RECEIVER], { env: { ...base, EXPERTQ_WEBHOOK_SECRET: SECRET, PORT: String(port), ...env }, cwd: ROOT });
  let out = '';
  return new Promise((resolve, reject) => {
    child!.stdout!.on('data', (d) => {
      out += String(d);
      if (out.includes('receiving webhooks on')) resolve({ url: `http://127.0.0.1:${port}`, out: () => out });
    });
    child!.once('exit', (code) => reject(new Error(`receiver exited ${code}`)));
  });
}

/** An address of this machine other than 127.0.0.1: a network interface's, else 127.0.0.2 (Linux routes all of 127/8 to loopback). */
function otherAddress(): string {
  const external = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal);
  return external?.address ?? '127.0.0.2';
}

/** Whether a TCP connection to host:port is accepted. */
function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the webhook receiver of the docs (examples/receiver.mjs)', () => {
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
    expect(out()).toMatch(/receiving webhooks on http:\/\/127\.0\.0\.1:\d+/);
  });

  it('listens on 127.0.0.1 only unless HOST says otherwise, and prints the address', async () => {
    const port = await freePort();
    const { out } = await startReceiver(port);
    expect(out()).toContain(`receiving webhooks on http://127.0.0.1:${port}`);
    expect(await connects('127.0.0.1', port)).toBe(true);
    expect(await connects(otherAddress(), port)).toBe(false);
    child?.kill('SIGKILL');

    const open = await freePort();
    const everywhere = await startReceiver(open, { HOST: '0.0.0.0' });
    expect(everywhere.out()).toContain(`receiving webhooks on http://0.0.0.0:${open}`);
    expect(await connects(otherAddress(), open)).toBe(true);
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

  it('is the receiver docs/agents.md and docs/webhooks.md show, character for character', () => {
    const example = readFileSync(RECEIVER, 'utf8');
    for (const doc of [join('docs', 'agents.md'), join('docs', 'webhooks.md')]) {
      const blocks = [...readFileSync(join(ROOT, doc), 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
      expect(blocks, doc).toContain(example);
    }
  });
});
