/**
 * Runs `work` soon after a kick, one run at a time: kicks in the same event-loop turn merge into one
 * run, and a kick during a run asks for exactly one more after it, so nothing kicked is missed. What
 * the work throws goes to `onError` (the next kick runs it again).
 */
export class CoalescedRun {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.work())
      .catch(this.onError)
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** A run is under way or about to start. */
  get busy(): boolean {
    return this.running !== null;
  }

  /** Resolves when no run is under way or about to start. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }
}
