import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/** README.md, CONTRIBUTING.md and every page under docs/. */
function pages(): string[] {
  const found = ['README.md', 'CONTRIBUTING.md'];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) found.push(path);
    }
  };
  walk('docs');
  return found;
}

/** The text outside fenced code blocks and inline code, where links are links. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of prose(text.replace(/`([^`\n]*)`/g, '$1')).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function links(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/i.test(l));
}

describe('the docs', () => {
  const all = pages();

  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of all) {
      for (const link of links(readFileSync(page, 'utf8'))) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? page : join(dirname(page), decodeURIComponent(path));
        if (!existsSync(target)) {
          broken.push(`${page}: ${link} (no such file)`);
        } else if (anchor !== undefined && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(anchor)) {
          broken.push(`${page}: ${link} (no such heading in ${relative('.', target)})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('are all reachable from the README', () => {
    const reached = new Set(['README.md']);
    const queue = ['README.md'];
    while (queue.length > 0) {
      const page = queue.shift()!;
      for (const link of links(readFileSync(page, 'utf8'))) {
        const target = join(dirname(page), decodeURIComponent(link.split('#')[0]!));
        if (target.endsWith('.md') && existsSync(target) && !reached.has(target)) {
          reached.add(target);
          queue.push(target);
        }
      }
    }
    expect(all.filter((p) => !reached.has(p))).toEqual([]);
  });

  it('start from a README a newcomer reads to the end (150 lines at most)', () => {
    expect(readFileSync('README.md', 'utf8').split('\n').length).toBeLessThanOrEqual(151);
  });

  it('cite no internal document', () => {
    const citing = all.filter((page) => ((text) => /\bSPEC\b/.test(text) || /\bthe seed\b/i.test(text))(readFileSync(page, 'utf8')));
    expect(citing).toEqual([]);
  });
});
