/**
 * What an HTTP answer (/healthz, a webhook's 503) may say of a failure: anyone who can reach the
 * receiver reads it, no secret needed. A queue failure becomes a fixed phrase, never the database's
 * user, host, port or name, nor the queue file's path; the detail goes to the log (masked).
 */
import { messageOf, QueueError } from '../../model/errors.js';
import { oneLine } from '../../config/echo.js';
import { sqliteCode } from '../../model/sqlite.js';

/** By error code (SQLSTATE, Node's system codes, SQLite's), first match wins. */
const BY_CODE: Array<[RegExp, string]> = [
  [/^28P01$|^28000$/, 'database refused the login'],
  [/^3D000$/, 'database does not exist'],
  [/^3F000$|^42501$|^42P01$/, 'queue schema missing or not permitted'],
  [/^57P0[1-3]$|^08/, 'database shut down or connection lost'],
  [/^53/, 'database out of resources'],
  [/^ECONNREFUSED$/, 'database refused the connection'],
  [/^ECONNRESET$|^EPIPE$/, 'database connection lost'],
  [/^ETIMEDOUT$/, 'database did not answer in time'],
  [/^ENOTFOUND$|^EAI_AGAIN$/, 'database host not found'],
  [/^SQLITE_FULL|^ENOSPC$/, 'disk full'],
  [/^SQLITE_BUSY|^SQLITE_LOCKED/, 'queue file locked by another process'],
  [/^SQLITE_READONLY/, 'queue file is read-only'],
  [/^SQLITE_/, 'queue file cannot be used'],
];

/** By message, for drivers that give no code (pg's connection errors are plain Errors). */
const BY_MESSAGE: Array<[RegExp, string]> = [
  [/password authentication failed|no pg_hba\.conf entry|authentication/i, 'database refused the login'],
  [/database "[^"]*" does not exist/i, 'database does not exist'],
  [/ECONNREFUSED/, 'database refused the connection'],
  [/timeout|timed out/i, 'database did not answer in time'],
  [/ENOTFOUND|EAI_AGAIN/, 'database host not found'],
  [/terminat|shut ?down|Connection terminated/i, 'database shut down or connection lost'],
];

/** SQLite's code by name (SQLITE_FULL), or the error's own code (SQLSTATE, Node's), or ''. */
const codeOf = (error: unknown): string => sqliteCode(error);

const isQueueFailure = (error: unknown): boolean => error instanceof QueueError || /^SQLITE_/.test(codeOf(error));

/** The reason of a queue failure for an HTTP answer: "queue unavailable: <fixed phrase>". */
export function queueReason(error: unknown): string {
  const code = codeOf(error);
  const message = messageOf(error);
  const phrase = BY_CODE.find(([p]) => code !== '' && p.test(code))?.[1] ?? BY_MESSAGE.find(([p]) => p.test(message))?.[1] ?? 'storage error (the log has the detail)';
  return `queue unavailable: ${phrase}`;
}

/** Any failure for an HTTP answer: a queue failure as queueReason; others (the platform's, Salesforce's) as their one-line message. */
export function publicReason(error: unknown): string {
  return isQueueFailure(error) ? queueReason(error) : oneLine(messageOf(error), 200);
}
