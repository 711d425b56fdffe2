import { realpathSync, statSync, watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';

export interface FileWatch {
  close(): void;
}

export interface WatchFileOptions {
  /** Changes closer together than this are one change (editors write, rename and touch in a burst). */
  debounceMs?: number;
  /** The watch itself failed (the folder was removed, too many watches). */
  onError?: (error: Error) => void;
}

/**
 * Calls `onChange` when the file's content may have changed. The file's folder is watched, not the
 * file: editors and Kubernetes config maps replace a file by renaming another over it (or by swapping
 * a symlink), which a watch on the old file never sees. A symlinked file's target folder is watched
 * too. Every event in those folders (a database beside the config writes often) only leads to a cheap
 * `stat`; `onChange` runs when the file's identity, size or times differ from the last look, and not
 * while the file is missing (mid-replace).
 */
export function watchFile(file: string, onChange: () => void, options: WatchFileOptions = {}): FileWatch {
  const debounceMs = options.debounceMs ?? 100;
  let last = signature(file);
  let timer: NodeJS.Timeout | null = null;
  const settle = () => {
    timer = null;
    const now = signature(file);
    if (now === last) return;
    last = now;
    if (now !== null) onChange();
  };
  const changed = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(settle, debounceMs);
    timer.unref();
  };
  const folders = new Set([dirname(file)]);
  try {
    folders.add(dirname(realpathSync(file)));
  } catch {
    // A missing file is watched by its folder alone; it counts as changed when it appears.
  }
  const watchers: FSWatcher[] = [];
  for (const folder of folders) {
    const watcher = watch(folder, { persistent: false }, changed);
    watcher.on('error', (error) => options.onError?.(error));
    watchers.push(watcher);
  }
  return {
    close() {
      if (timer) clearTimeout(timer);
      timer = null;
      for (const watcher of watchers) watcher.close();
    },
  };
}

/** What identifies one version of the file, through symlinks; null while it is missing. */
function signature(file: string): string | null {
  try {
    const real = realpathSync(file);
    const s = statSync(real);
    return `${real}|${s.ino}|${s.size}|${s.mtimeMs}|${s.ctimeMs}`;
  } catch {
    return null;
  }
}
