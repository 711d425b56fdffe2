import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientHintCommand, howToRun, localServerUrl } from '../../src/config/how-to-run.js';

/**
 * The command lines expertq prints as hints (`init`, the console transport, `backup`) must work when
 * pasted into any shell, in any folder, later: a clone (package/dist/cli/main.js), a PATH with or
 * without an `expertq` on it.
 */
let root: string;
let clone: string;
let main: string;
let linked: string;
let elsewhere: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'expertq-how-to-run-'));
  clone = join(root, 'expertq');
  main = join(clone, 'dist', 'cli', 'main.js');
  mkdirSync(join(clone, 'dist', 'cli'), { recursive: true });
  writeFileSync(main, '#!/usr/bin/env node\n');
  linked = join(root, 'bin');
  mkdirSync(linked);
  symlinkSync(main, join(linked, 'expertq')); // what `npm link` leaves on the PATH
  elsewhere = join(root, 'work dir');
  mkdirSync(join(elsewhere, 'conf'), { recursive: true });
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('howToRun', () => {
  it('with expertq on the PATH (npm link): expertq, and the config by its absolute path', () => {
    expect(howToRun('conf/prod.yaml', 'serve', { main, cwd: elsewhere, env: { PATH: `/nonexistent:${linked}` } })).toBe(
      `expertq serve --config '${join(elsewhere, 'conf', 'prod.yaml')}'`,
    );
  });

  it('without: node and the absolute path of the binary, even inside the clone (npx elsewhere asks the registry)', () => {
    const config = join(clone, 'service.example.yaml');
    expect(howToRun(config, 'queue', { main, cwd: clone, env: { PATH: '/usr/bin' } })).toBe(`node ${main} queue --config ${config}`);
  });

  it('under npx, the PATH npx made (its cache, node_modules/.bin) is not the shell\'s', () => {
    const npxBin = join(root, '.npm', '_npx', 'f00d', 'node_modules', '.bin');
    mkdirSync(npxBin, { recursive: true });
    symlinkSync(main, join(npxBin, 'expertq'));
    const env = { PATH: `/usr/bin:${join(clone, 'node_modules', '.bin')}:${npxBin}` };
    expect(howToRun('/etc/expertq/service.yaml', 'restore b.db', { main, cwd: clone, env })).toBe(`node ${main} restore b.db --config /etc/expertq/service.yaml`);
  });

  it('another expertq first on the PATH is not trusted to be this one', () => {
    const other = join(root, 'other-bin');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'expertq'), '#!/bin/sh\n');
    expect(howToRun('/etc/expertq/service.yaml', 'serve', { main, cwd: elsewhere, env: { PATH: `${other}:${linked}` } })).toBe(`node ${main} serve --config /etc/expertq/service.yaml`);
  });
});

describe('clientHintCommand and localServerUrl: hints that call the server name where it listens', () => {
  it('adds --url once the address is known, and nothing before', () => {
    const server: { url?: string } = {};
    const hint = clientHintCommand(join(elsewhere, 'conf', 'service.yaml'), () => server.url, { env: { PATH: linked }, main });
    expect(hint('queue')).toBe(`expertq queue --config '${join(elsewhere, 'conf', 'service.yaml')}'`);
    server.url = 'http://127.0.0.1:9000';
    expect(hint('queue')).toBe(`expertq queue --url http://127.0.0.1:9000 --config '${join(elsewhere, 'conf', 'service.yaml')}'`);
  });

  it.each([
    ['127.0.0.1', 8776, 'http://127.0.0.1:8776'],
    ['0.0.0.0', 9000, 'http://127.0.0.1:9000'],
    ['::', 9000, 'http://[::1]:9000'],
    ['::1', 9000, 'http://[::1]:9000'],
    ['localhost', 7101, 'http://localhost:7101'],
  ])('listening on %s:%s is reached at %s', (host, port, url) => {
    expect(localServerUrl(host, port)).toBe(url);
  });
});
