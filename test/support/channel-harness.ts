/**
 * What the channel contract suite (test/transport/transport-contract.test.ts) needs of a channel: a
 * running service reached through it, asks read as the expert sees them, and replies given the way
 * the channel takes them. One harness per channel; the behaviours are the same for all.
 */
export interface Harness {
  /** Expert ids for Dana (escalates to Lee), Lee and Sam. */
  ids: { dana: string; lee: string; sam: string };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Every ask an expert received so far, each as its elements (six, and a line after the question when it shows a previous answer). */
  asksTo(expertId: string): string[][];
  /** Other messages to an expert (notices such as the acceptance). */
  noticesTo(expertId: string): string[];
  reply(expertId: string, text: string, requestId: string): Promise<void>;
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}
