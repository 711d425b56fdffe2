/**
 * The durable LLM jobs (draft, structure, match, judge): the worker that runs them after commit,
 * what each result does, and expiry.
 */
export { expireLlmJobs } from './expire-llm-jobs.js';
export { LlmWorker } from './llm-worker.js';
