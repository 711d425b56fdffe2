import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempServers } from './serve-temp-database.js';

const servers = useTempServers();

describe('one process per database', () => {
  it('creates a new database readable by its owner only (it holds signing secrets)', async () => {
    await servers.start();
    expect(statSync(join(servers.dir, 'expertq.db')).mode & 0o777).toBe(0o600);
    expect(statSync(join(servers.dir, 'expertq.db-wal')).mode & 0o777).toBe(0o600);
  });
});
