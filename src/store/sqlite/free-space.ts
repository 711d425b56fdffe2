import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Below this much free disk `/readyz` fails: a checkpoint may grow the database by the whole WAL
 * (about 4 MB at SQLite's default of 1,000 pages), and the next burst needs room beyond that.
 */
export const MIN_FREE_BYTES = 16 * 1_048_576;

/** Throws, saying how little is left, when the disk holding the database file has under `minFreeBytes` free. */
export function checkFreeSpace(file: string, minFreeBytes: number): void {
  if (file === ':memory:' || file === '') return;
  const disk = statfsSync(dirname(file));
  const free = disk.bavail * disk.bsize;
  if (free < minFreeBytes) throw new Error(`only ${(free / 1_048_576).toFixed(1)} MB free on the disk that holds ${file}`);
}
