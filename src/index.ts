/** The expertq package: run the service in-process or embed its parts. */
export { buildApp, type AppOptions } from './app.js';
export { startServer, type RunningServer, type ServeOptions } from './server.js';
export { createService, Expertq, type CreateServiceOptions, type InProcessConsumer } from './create-service.js';
export { composeService, type ComposeServiceOptions } from './compose-service.js';
export { ExpertqService, type ExpertqServiceOptions } from './service/expertq-service.js';
export type { DueWorkOptions, TickResult } from './service/operations/index.js';
export { loadConfig, parseConfig, ConfigError, type Config } from './config/load-config.js';
export type { Clock } from './clock.js';
export type { Transport, OutboundMessage, InboundReply } from './transport/transport.js';
