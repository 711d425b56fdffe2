import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { stringify } from 'yaml';
import { startServer, type RunningServer } from '../../../src/server.js';
import { captureLogger } from '../../support/capture.js';

export const OPS_TOKEN = 'ops-token';

export interface TempServers {
  /** This test's fresh directory: service.yaml, and the database expertq.db beside it. */
  readonly dir: string;
  /** Starts a server in this process on the directory's config (port 0); closed after the test. */
  start(): Promise<RunningServer>;
}

/** Registers hooks giving each test a fresh directory with a one-expert config, and closing its servers and removing it after. */
export function useTempServers(): TempServers {
  let dir = '';
  const running: RunningServer[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'expertq-ops-'));
    writeFileSync(join(dir, 'service.yaml'), stringify({ org: { name: 'Acme' }, experts: [{ id: 'dana', name: 'Dana Smith', topics: ['billing'] }] }));
  });
  afterEach(async () => {
    for (const s of running.splice(0)) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    async start() {
      const { log } = captureLogger();
      const server = await startServer({ configPath: join(dir, 'service.yaml'), env: { SERVICE_API_TOKEN: OPS_TOKEN }, logger: log, port: 0, out: { write: () => true } as never });
      running.push(server);
      return server;
    },
  };
}
