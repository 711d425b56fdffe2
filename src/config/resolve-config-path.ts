import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Where the configuration is, the same way for the server and every client command: `--config`, then
 * `EXPERTQ_CONFIG`, then `./service.yaml`, then (in a clone, where `npm start` serves it)
 * `./service.example.yaml`. Returns the path and what chose it, for messages.
 */
export function resolveConfigPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): { path: string; from: string } {
  if (flag) return { path: resolve(cwd, flag), from: '--config' };
  if (env.EXPERTQ_CONFIG) return { path: resolve(cwd, env.EXPERTQ_CONFIG), from: 'EXPERTQ_CONFIG' };
  const local = resolve(cwd, 'service.yaml');
  if (existsSync(local)) return { path: local, from: './service.yaml' };
  const example = resolve(cwd, 'service.example.yaml');
  if (existsSync(example)) return { path: example, from: './service.example.yaml (no service.yaml here)' };
  return { path: local, from: './service.yaml' };
}
