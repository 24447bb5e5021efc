// Public API of @plant-store/server: the runnable service behind the
// `plant-store` CLI, for tools that start it in-process.
export { serve, ListenError, type ReloadSources, type ServeHandle, type ServeIo } from './serve.js';
export { loadConfig, type LoadConfigOptions, type ServeArgs, type ServeConfig } from './config/load-config.js';
export { jsonLogger, LOG_LEVELS, type JsonLoggerOptions, type LogLevel, type LogSink, type TraceIds } from './logging/json-logger.js';
export { runCli } from './cli/run-cli.js';
export { version } from './version.js';
