/**
 * The time zone a store's day and week rollup rows are kept in, shared by its writes and reads: null
 * until known (read from the database at first use, set by `Store.keepInsightsIn`).
 */
export class PeriodZone {
  current: string | null = null;
  /** Whether the database was read for it: a database without one keeps no day and week rows yet. */
  loaded = false;

  async get(read: () => Promise<string | undefined>): Promise<string | null> {
    if (!this.loaded) {
      this.current = (await read()) ?? null;
      this.loaded = true;
    }
    return this.current;
  }

  set(zone: string): void {
    this.current = zone;
    this.loaded = true;
  }
}
