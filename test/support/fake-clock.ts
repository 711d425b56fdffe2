import type { Clock } from '../../src/clock.js';

/** A clock tests move by hand: no sleeps, no flakiness. */
export class FakeClock implements Clock {
  constructor(private ms = Date.parse('2026-11-23T10:00:00.000Z')) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(iso: string | number): void {
    this.ms = typeof iso === 'number' ? iso : Date.parse(iso);
  }
}
