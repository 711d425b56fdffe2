import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installed package's root folder (two levels above this file in both src/ and dist/). */
export const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

let version: string | undefined;

/** The package's version from its package.json, read once. */
export function packageVersion(): string {
  if (version === undefined) {
    try {
      version = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      version = 'unknown';
    }
  }
  return version;
}
