import { chmodSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';

/** `statfs` type of a tmpfs: memory, where an fsync costs nothing. */
const TMPFS_MAGIC = 0x01021994;
/** Room the run needs there: workspaces, SQLite files, browser profiles, the recipe test's stages. */
const NEEDED_BYTES = 4 * 1024 ** 3;

/**
 * Global set-up: the run's temporary files (every test's SQLite databases, workspaces and browser
 * profiles) go to a folder in /dev/shm when it is a tmpfs with room, and the folder is removed at the
 * end. Each SQLite commit syncs to disk (`synchronous=FULL`); in memory the sync is free, and what the
 * tests check of durability (a `kill -9` of the process) is the same, since that never loses what the
 * kernel holds. `TMPDIR` set by whoever runs the tests is kept. `EXPERTQ_DISK_TMPDIR` names the usual
 * temporary folder, on disk, for a test that needs the repository's filesystem (hard links).
 */
export default function setup(): (() => void) | void {
  if (process.env.TMPDIR) return;
  try {
    const fs = statfsSync('/dev/shm');
    if (fs.type !== TMPFS_MAGIC || fs.bavail * fs.bsize < NEEDED_BYTES) return;
  } catch {
    return; // no /dev/shm (macOS, Windows)
  }
  const dir = mkdtempSync('/dev/shm/expertq-test-');
  // Like /tmp: PostgreSQL, run as another user when the tests run as root, reaches its folder inside.
  chmodSync(dir, 0o1777);
  process.env.EXPERTQ_DISK_TMPDIR = tmpdir();
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}

/** The usual temporary folder, on disk even when the run's temporary files are in memory. */
export function diskTmpdir(): string {
  return process.env.EXPERTQ_DISK_TMPDIR ?? tmpdir();
}

