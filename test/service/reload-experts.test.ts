import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createService, type Expertq } from '../../src/create-service.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { EXAMPLE_EXPERTS, submitBody } from '../support/build-test-app.js';
import { Capture, captureLogger } from '../support/capture.js';
import { FakeClock } from '../support/fake-clock.js';
import { until } from '../support/until.js';

const RAVI = { id: 'ravi', name: 'Ravi Patel', topics: ['billing', 'tax'] };
const BASE = { org: { name: 'Acme', timezone: 'UTC' }, experts: EXAMPLE_EXPERTS, topics: { security: { fallback: 'sam' } } };

let dir: string;
let file: string;
let logs: Capture;
let out: Capture;
const open: Array<{ close(): Promise<void> }> = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'expertq-reload-'));
  file = join(dir, 'service.yaml');
  out = new Capture();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(config: Record<string, unknown>): void {
  writeFileSync(file, stringify(config));
}

/** As an editor or a Kubernetes config map does: a new file renamed over the old one. */
function replaceConfig(config: Record<string, unknown>): void {
  const temp = join(dir, 'service.yaml.new');
  writeFileSync(temp, stringify(config));
  renameSync(temp, file);
}

async function start(config: Record<string, unknown> = BASE, watchConfig = true): Promise<Expertq> {
  writeConfig(config);
  const captured = captureLogger();
  logs = captured.logs;
  const expertq = await createService({ config: file, out, logger: captured.log, clock: new FakeClock(), timers: false, watchConfig });
  open.push(expertq);
  return expertq;
}

const ids = (expertq: Expertq) => expertq.service.experts.experts.map((e) => e.id);
const logged = (level: number, text: string) => logs.lines.filter((l) => l.level === level && String(l.msg).includes(text));

describe('reloading the experts from the config file', () => {
  it('a new experts section, renamed over the file, replaces the registry and says how many experts', async () => {
    const expertq = await start();
    replaceConfig({ ...BASE, experts: [...EXAMPLE_EXPERTS, RAVI] });
    await until(() => ids(expertq).includes('ravi'), 5_000, 'the registry has ravi');
    expect(ids(expertq)).toEqual(['dana', 'lee', 'sam', 'ravi']);
    expect(logged(30, 'expert registry reloaded')).toEqual([expect.objectContaining({ file, experts: 4, trigger: 'file changed' })]);
    expect((await expertq.service.listExperts()).find((e) => e.id === 'ravi')).toMatchObject({ name: 'Ravi Patel', available_now: true });
  });

  it('keeps live state by id and gives held work its chance with the new experts', async () => {
    const expertq = await start({ ...BASE, defaults: { max_open_asks_per_expert: 1 } });
    await expertq.submitRequest(submitBody({ target_experts: ['lee'] }) as never);
    await expertq.receiveReply({ expert_id: 'dana', text: 'mute' });
    // lee is at the cap and dana is muted: this billing question waits.
    const held = await expertq.submitRequest(submitBody({ question: 'Who signs off refunds?' }) as never);
    expect((await expertq.service.getRequest(held.request_id)).asks).toEqual([]);

    writeConfig({ ...BASE, defaults: { max_open_asks_per_expert: 1 }, experts: [...EXAMPLE_EXPERTS, RAVI] });
    await until(() => ids(expertq).includes('ravi'), 5_000, 'the registry has ravi');
    expect((await expertq.service.listExperts()).find((e) => e.id === 'dana')).toMatchObject({ muted: true });
    expect((await expertq.service.listExperts()).find((e) => e.id === 'lee')).toMatchObject({ open_asks: 1 });
    await expertq.service.tick();
    await expertq.service.idle();
    expect((await expertq.service.getRequest(held.request_id)).asks.map((a) => a.expert_id)).toEqual(['ravi']);
  });

  it('an invalid experts section is logged with the file and the problem, and the running registry kept', async () => {
    const expertq = await start();
    const registry = expertq.service.experts;
    replaceConfig({ ...BASE, experts: [{ ...RAVI, escalation_to: 'ravi' }, ...EXAMPLE_EXPERTS] });
    await until(() => logged(50, 'not reloaded').length > 0, 5_000, 'the invalid file is logged');
    const [line] = logged(50, 'not reloaded');
    expect(line!.msg).toContain(file);
    expect(line!.problem).toContain('experts.0.escalation_to: an expert cannot escalate to itself');
    expect(expertq.service.experts).toBe(registry);
    expect(ids(expertq)).toEqual(['dana', 'lee', 'sam']);
  });

  it('refuses, as PUT /experts does, a registry without an expert a topic falls back to', async () => {
    const expertq = await start(BASE, false);
    writeConfig({ ...BASE, experts: EXAMPLE_EXPERTS.filter((e) => e.id !== 'sam'), topics: {} });
    expect(expertq.reloadExperts('SIGHUP')).toBe('invalid');
    expect(logged(50, 'not reloaded')[0]!.problem).toContain('topics.security.fallback: expert "sam" would no longer exist');
    expect(ids(expertq)).toEqual(['dana', 'lee', 'sam']);
  });

  it('not YAML, or an empty file: logged, registry kept', async () => {
    const expertq = await start(BASE, false);
    writeFileSync(file, 'experts: [\n');
    expect(expertq.reloadExperts('SIGHUP')).toBe('invalid');
    expect(logged(50, 'not reloaded')[0]!.problem).toContain(`Invalid YAML in ${file}`);
    expect(ids(expertq)).toEqual(['dana', 'lee', 'sam']);
    // Caught between a truncate and the new text: not an empty registry.
    writeFileSync(file, '');
    expect(expertq.reloadExperts('SIGHUP')).toBe('invalid');
    expect(logged(50, 'not reloaded')[1]!.problem).toBe(`The configuration file ${file} is empty.`);
    expect(ids(expertq)).toEqual(['dana', 'lee', 'sam']);
  });

  it('SIGHUP reads the file again even when it is not watched', async () => {
    const expertq = await start(BASE, false);
    writeConfig({ ...BASE, experts: [RAVI, ...EXAMPLE_EXPERTS] });
    expect(expertq.reloadExperts('SIGHUP')).toBe('reloaded');
    expect(ids(expertq)).toEqual(['ravi', 'dana', 'lee', 'sam']);
    expect(logged(30, 'expert registry reloaded')).toEqual([expect.objectContaining({ trigger: 'SIGHUP', experts: 4 })]);
    // Nothing new: nothing to do.
    expect(expertq.reloadExperts('SIGHUP')).toBe('unchanged');
    expect(logged(30, 'expert registry reloaded')).toHaveLength(1);
  });

  it('a change to another section is a warning that it needs a restart; only the experts are applied', async () => {
    const expertq = await start(BASE, false);
    writeConfig({ ...BASE, defaults: { escalation_after: '30m' }, experts: [...EXAMPLE_EXPERTS, RAVI] });
    expect(expertq.reloadExperts('SIGHUP')).toBe('reloaded');
    expect(logged(40, 'only after a restart')).toEqual([expect.objectContaining({ file, sections: ['defaults'] })]);
    expect(expertq.service.config.defaults.escalation_after).toBe(2 * 3_600_000);
    // Said once per change, not at every later reload.
    expect(expertq.reloadExperts('SIGHUP')).toBe('unchanged');
    expect(logged(40, 'only after a restart')).toHaveLength(1);
  });

  it('an invalid other section is a warning; valid experts are still applied', async () => {
    const expertq = await start(BASE, false);
    writeConfig({ ...BASE, defaults: { escalation_after: 'soon' }, experts: [...EXAMPLE_EXPERTS, RAVI] });
    expect(expertq.reloadExperts('SIGHUP')).toBe('reloaded');
    expect(logged(40, 'would not start on this file')[0]!.problem).toContain('defaults.escalation_after');
  });
});

describe('PUT /experts with the file watched', () => {
  it('is applied once: the watcher finds its own write already in the registry', async () => {
    writeConfig(BASE);
    const captured = captureLogger();
    logs = captured.logs;
    const server: RunningServer = await startServer({ configPath: file, out, logger: captured.log, clock: new FakeClock(), env: {}, port: 0 });
    open.push(server);
    const res = await server.app.inject({ method: 'PUT', url: '/api/v1/experts', payload: [...EXAMPLE_EXPERTS, RAVI] });
    expect(res.statusCode).toBe(200);
    const registry = server.service.experts;
    const readAgain = () => logs.lines.some((l) => /the experts are unchanged|expert registry reloaded/.test(String(l.msg)));
    await until(readAgain, 5_000, 'the watcher has read the written file');
    expect(server.service.experts).toBe(registry);
    expect(logged(30, 'expert registry replaced')).toHaveLength(1);
    expect(logged(30, 'expert registry reloaded')).toEqual([]);
    expect(logged(40, 'restart')).toEqual([]);
  });
});
