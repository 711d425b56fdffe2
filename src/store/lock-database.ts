import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { ConfigError } from '../config/load-config.js';

interface Holder {
  pid: number;
  host: string;
  started: string;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function holderOf(lockPath: string): Holder | null {
  try {
    return JSON.parse(readFileSync(lockPath, 'utf8')) as Holder;
  } catch {
    return null;
  }
}

/**
 * One expertq process owns a database (SPEC §5: the dispatchers and the scheduler assume it): a lock
 * file beside it (`<db>.lock`) names the process that holds it. A second `serve` or SDK process on
 * the same database refuses to start, naming the holder. A lock left by a process that is gone (a
 * `kill -9`, a power cut) is taken over, so a restart is never blocked by it.
 */
export function lockDatabase(dbPath: string): { release(): void } {
  const lockPath = `${dbPath}.lock`;
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), started: new Date().toISOString() } satisfies Holder);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(lockPath, mine, { flag: 'wx', mode: 0o600 });
      return {
        release() {
          try {
            if (readFileSync(lockPath, 'utf8') === mine) unlinkSync(lockPath);
          } catch {
            // Already gone: nothing to release.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = holderOf(lockPath);
    if (holder && (holder.host !== hostname() || alive(holder.pid))) {
      const where = holder.host === hostname() ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`;
      throw new ConfigError(
        `The database ${dbPath} is in use by ${where} (started ${holder.started}). Stop it first, or set another storage.path. ` +
          `If that process is gone, delete ${lockPath}.`,
      );
    }
    try {
      unlinkSync(lockPath); // left by a process that is gone
    } catch {
      // Someone else removed it first: try again.
    }
  }
  throw new ConfigError(`Could not take the lock ${lockPath}; another expertq may be starting at the same time.`);
}
