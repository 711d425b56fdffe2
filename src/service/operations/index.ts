/**
 * Running the service: instance heartbeats, retention pruning, the timed-work contract the
 * scheduler drives, and the background workers.
 */
export { InstanceHeartbeat, listInstances } from './instances.js';
export { cutoffsAt, pruneInSlices, Pruner, type RetentionSettings } from './pruner.js';
export { type TickResult, type TimedWork } from './timed-work.js';
