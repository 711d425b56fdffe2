/** What one scheduler tick did, as `ExpertqService.tick()` reports it. */
export interface TickResult {
  timed_out: number;
  rate_limited: number;
  /** Open requests whose subscribers were told they give up soon (`request_expiring`). */
  warned: number;
  escalated: number;
  /** Queued asks sent (quiet hours over, or their expert freed up). */
  sent: number;
  /** Held requests placed with an expert. */
  placed: number;
  /** True when due work was left for the next tick (`maxPerTick` reached). */
  more: boolean;
  /** True when reviewers were reminded of the pending queue (`review.remind_after`). */
  reminded: boolean;
}

/**
 * Everything that happens because time passed (give-ups, escalations, waiting work, reminders). The
 * service owns this interface and the composition root plugs the scheduler into it, so the service
 * never imports the layer above it.
 */
export interface TimedWork {
  tick(now: number): Promise<TickResult>;
}
