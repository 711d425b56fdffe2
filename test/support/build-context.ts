import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * `.dockerignore` as Docker applies it: each line a pattern relative to the context's top folder
 * (`*` and `?` within a name, `**` across folders), a pattern naming a folder excludes everything in
 * it, and a later `!pattern` takes a path back in.
 */
export function dockerignore(text: string): (path: string) => boolean {
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const keep = line.startsWith('!');
      const pattern = (keep ? line.slice(1) : line).replace(/^\/+/, '').replace(/\/+$/, '');
      return { keep, regex: globRegex(pattern) };
    });
  return (path) => {
    const parts = path.split('/');
    let ignored = false;
    for (const rule of rules) {
      // The path itself or any folder above it.
      const hit = parts.some((_, i) => rule.regex.test(parts.slice(0, i + 1).join('/')));
      if (hit) ignored = !rule.keep;
    }
    return ignored;
  };
}

function globRegex(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      // `**/` matches no folder or any number of them; a trailing `**` anything below.
      source += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/**
 * A build context like the one `docker build .` sends: the repository's tracked files (as they are
 * in the working tree) less what `.dockerignore` excludes, copied into `into`. Returns the paths copied.
 */
export function copyBuildContext(repo: string, into: string): string[] {
  const ignored = dockerignore(existsSync(join(repo, '.dockerignore')) ? readFileSync(join(repo, '.dockerignore'), 'utf8') : '');
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: repo, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter(Boolean);
  const copied: string[] = [];
  for (const path of tracked) {
    const from = join(repo, path);
    // Deleted in the working tree, or a folder symlink git tracks (node_modules in a worktree).
    if (ignored(path) || !existsSync(from) || lstatSync(from).isDirectory()) continue;
    mkdirSync(dirname(join(into, path)), { recursive: true });
    copyFileSync(from, join(into, path));
    copied.push(path);
  }
  return copied;
}
