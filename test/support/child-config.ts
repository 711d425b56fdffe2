import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from './cli.js';

/**
 * A folder with a `service.yaml` for an `expertq serve` child process: Acme, a free port on loopback, a
 * fast tick, an SQLite file in the folder, and `sections` (experts, channels, defaults) on top; the
 * `server` keys given are added to those.
 */
export async function childConfig(prefix: string, sections: Record<string, unknown>): Promise<{ dir: string; configFile: string; base: string }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const port = await freePort();
  const configFile = join(dir, 'service.yaml');
  writeFileSync(
    configFile,
    stringify({
      org: { name: 'Acme', timezone: 'UTC' },
      storage: { path: join(dir, 'expertq.db') },
      ...sections,
      server: { port, host: '127.0.0.1', tick_ms: 100, public_url: 'https://expertq.acme.example', ...(sections.server as object | undefined) },
    }),
  );
  return { dir, configFile, base: `http://127.0.0.1:${port}` };
}
