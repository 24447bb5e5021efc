// Public API of @plant-store/server: the runnable service behind the `plant-store` CLI.
export { serve, ListenError, type ServeHandle, type ServeIo } from './serve.js';
export { loadConfig, parseServeArgs, type LoadConfigOptions, type ServeArgs, type ServeConfig } from './config/load-config.js';
export { parseDuration, parseDurationList } from './config/parse-duration.js';
export { SETTINGS, settingName, type SettingKey } from './config/settings.js';
export { jsonLogger, LOG_LEVELS, type JsonLoggerOptions, type LogLevel, type LogSink } from './logging/json-logger.js';
export { runCli } from './cli/run-cli.js';
export { runWebhooksCommand } from './cli/webhooks-command.js';
export { version } from './version.js';
