/**
 * Log lines for people reading a log later (cron, `serve`): each one timestamped (ISO 8601, UTC),
 * as text or, with SVC_LOG_FORMAT=json, one JSON object a line ({time, level, msg}) for a log
 * pipeline. A small own formatter rather than pino: the project's few log calls need one line
 * format and the same secret masking as every other message, not a new dependency.
 */
import { ConfigError } from '../model/errors.js';
import { echo } from './echo.js';

export type LogFormat = 'text' | 'json';
export type LogLevel = 'info' | 'warn' | 'error';

/** SVC_LOG_FORMAT as given (flag > environment > file); text when unset. */
export function parseLogFormat(value: string | undefined): LogFormat {
  const v = value?.trim().toLowerCase();
  if (v === undefined || v === '') return 'text';
  if (v === 'text' || v === 'json') return v;
  throw new ConfigError(`SVC_LOG_FORMAT ${echo(value ?? '', 20)}: must be text or json`);
}

/**
 * One log line without its newline. `msg` must already be masked; `time` defaults to now. A text
 * line is timestamped only when asked (a person at a terminal sees the time already).
 */
export function logLine(format: LogFormat, level: LogLevel, msg: string, stamp: boolean, time: Date = new Date()): string {
  if (format === 'json') return JSON.stringify({ time: time.toISOString(), level, msg });
  return stamp ? `${time.toISOString()} ${msg}` : msg;
}

/** Where a long-running part (serve's receiver, worker, queue) writes a line; info unless said. */
export type LogSink = (line: string, level?: LogLevel) => void;
