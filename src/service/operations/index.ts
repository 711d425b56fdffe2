/**
 * Running the service: the due work each tick does (give-ups, warnings, escalations, waiting work,
 * review reminders), instance heartbeats and retention pruning.
 */
export { DueWorkState, runDueWork, type DueWorkOptions, type TickResult } from './due-work.js';
export { InstanceHeartbeat, listInstances } from './instances.js';
export { cutoffsAt, pruneInSlices, Pruner, type RetentionSettings } from './pruner.js';
