import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { howToRun } from '../../src/cli/how-to-run.js';

/**
 * The command lines expertq prints as hints (`init`, the console transport, `backup`) must work when
 * pasted: a clone (package/dist/cli/main.js), a PATH with or without an `expertq` on it, and folders
 * inside and outside the clone.
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
  writeFileSync(join(clone, 'service.example.yaml'), 'org: {}\n');
  linked = join(root, 'bin');
  mkdirSync(linked);
  symlinkSync(main, join(linked, 'expertq')); // what `npm link` leaves on the PATH
  elsewhere = join(root, 'work dir');
  mkdirSync(join(elsewhere, 'conf'), { recursive: true });
  writeFileSync(join(elsewhere, 'service.yaml'), 'org: {}\n');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('howToRun', () => {
  it('inside the clone: npx expertq, with no --config for the example config npm start serves', () => {
    expect(howToRun(join(clone, 'service.example.yaml'), 'queue', { main, cwd: clone, env: { PATH: '/usr/bin' } })).toBe('npx expertq queue');
  });

  it('outside the clone with expertq on the PATH (npm link): expertq', () => {
    expect(howToRun(join(elsewhere, 'service.yaml'), 'serve', { main, cwd: elsewhere, env: { PATH: `/nonexistent:${linked}` } })).toBe('expertq serve');
  });

  it('outside the clone with no expertq on the PATH: node and the absolute path of the binary', () => {
    expect(howToRun(join(elsewhere, 'service.yaml'), 'serve', { main, cwd: elsewhere, env: { PATH: '/usr/bin' } })).toBe(`node ${main} serve`);
  });

  it('under npx, the PATH npx made (its cache, node_modules/.bin) is not the shell\'s: npx expertq', () => {
    const npxBin = join(root, '.npm', '_npx', 'f00d', 'node_modules', '.bin');
    mkdirSync(npxBin, { recursive: true });
    symlinkSync(main, join(npxBin, 'expertq'));
    const env = { PATH: `/usr/bin:${join(clone, 'node_modules', '.bin')}:${npxBin}` };
    expect(howToRun(join(clone, 'service.example.yaml'), 'restore b.db', { main, cwd: clone, env })).toBe('npx expertq restore b.db');
  });

  it('another expertq first on the PATH is not trusted to be this one', () => {
    const other = join(root, 'other-bin');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'expertq'), '#!/bin/sh\n');
    expect(howToRun(join(elsewhere, 'service.yaml'), 'serve', { main, cwd: elsewhere, env: { PATH: `${other}:${linked}` } })).toBe(`node ${main} serve`);
  });

  it('adds --config when the CLI would not find the file by itself: relative below the folder, else absolute, quoted for the shell', () => {
    const shell = { main, cwd: elsewhere, env: { PATH: linked } };
    expect(howToRun(join(elsewhere, 'conf', 'prod.yaml'), 'reply dana "<answer>" --request req_1', shell)).toBe('expertq reply dana "<answer>" --request req_1 --config conf/prod.yaml');
    expect(howToRun('/etc/expertq/service.yaml', 'serve', { ...shell, cwd: clone })).toBe('expertq serve --config /etc/expertq/service.yaml');
    expect(howToRun(join(elsewhere, 'service.yaml'), 'serve', { ...shell, cwd: clone })).toBe(`expertq serve --config '${join(elsewhere, 'service.yaml')}'`);
  });

  it('ignores EXPERTQ_CONFIG: the shell the hint is pasted into may not have it', () => {
    const shell = { main, cwd: elsewhere, env: { PATH: linked, EXPERTQ_CONFIG: 'conf/prod.yaml' } };
    expect(howToRun(join(elsewhere, 'conf', 'prod.yaml'), 'queue', shell)).toBe('expertq queue --config conf/prod.yaml');
  });
});
