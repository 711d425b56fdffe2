import type { Reporter, TestCase, TestModule } from 'vitest/node';

/**
 * A test that did not run because the set-up of a suite or file around it failed (a `beforeAll` threw,
 * the file did not load): vitest reports it as skipped; the closing line counts it as failed. A test left
 * out by a filter (`-t`) beside one that failed stays skipped.
 */
function failedAround(test: TestCase): boolean {
  for (let parent = test.parent; ; parent = parent.parent) {
    if (parent.state() === 'failed' && parent.errors().length > 0) return true;
    if (parent.type === 'module') return false;
  }
}

/** Prints the plain closing line CI reads: `N passed, N failed` (plus skipped when any). */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed' || failedAround(test)) failed++;
        else skipped++;
      }
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
