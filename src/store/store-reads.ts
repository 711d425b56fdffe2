import type { Reads } from './store.js';

/**
 * The reads of a store outside transactions, one repository per aggregate, each reading only what
 * was committed. Every engine's store extends it with the repositories over its read connection(s).
 */
export abstract class StoreReads implements Reads {
  readonly requests: Reads['requests'];
  readonly asks: Reads['asks'];
  readonly proposals: Reads['proposals'];
  readonly outbox: Reads['outbox'];
  readonly consumers: Reads['consumers'];
  readonly chat: Reads['chat'];
  readonly llmJobs: Reads['llmJobs'];
  readonly serviceState: Reads['serviceState'];
  readonly retention: Reads['retention'];
  readonly metrics: Reads['metrics'];
  readonly instances: Reads['instances'];
  readonly sessions: Reads['sessions'];
  readonly answers: Reads['answers'];

  constructor(reads: Reads) {
    this.requests = reads.requests;
    this.asks = reads.asks;
    this.proposals = reads.proposals;
    this.outbox = reads.outbox;
    this.consumers = reads.consumers;
    this.chat = reads.chat;
    this.llmJobs = reads.llmJobs;
    this.serviceState = reads.serviceState;
    this.retention = reads.retention;
    this.metrics = reads.metrics;
    this.instances = reads.instances;
    this.sessions = reads.sessions;
    this.answers = reads.answers;
  }
}
