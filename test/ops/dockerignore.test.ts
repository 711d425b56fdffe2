import { describe, expect, it } from 'vitest';
import { dockerignore } from '../support/build-context.js';

/** The recipe test's reading of .dockerignore is Docker's: anchored at the top, folders take their contents. */
describe('dockerignore', () => {
  const ignored = dockerignore(['# comment', 'bench', '/dist/', '**/*.db', 'service.yaml', 'docs/*.png', '!docs/keep.png'].join('\n'));

  it('excludes a named folder with everything in it, anchored at the top of the context', () => {
    expect(ignored('bench/run.js')).toBe(true);
    expect(ignored('dist/cli/main.js')).toBe(true);
    expect(ignored('src/bench/run.ts')).toBe(false);
  });

  it('matches ** across folders and * within one name only', () => {
    expect(ignored('expertq.db')).toBe(true);
    expect(ignored('data/deep/expertq.db')).toBe(true);
    expect(ignored('expertq.db-wal')).toBe(false);
    expect(ignored('docs/review-queue.png')).toBe(true);
    expect(ignored('docs/img/review-queue.png')).toBe(false);
  });

  it('leaves a same-named file in a subfolder in, and takes a later ! pattern back in', () => {
    expect(ignored('service.yaml')).toBe(true);
    expect(ignored('deploy/container/service.yaml')).toBe(false);
    expect(ignored('docs/keep.png')).toBe(false);
  });
});
