/**
 * The errors that cross folders, and ONE table of what each means: whether it stops a run (fatal:
 * no later record can succeed, and a webhook batch fails whole so its events stay queued) and the
 * exit code a command ends with, plus the next command to run. Messages never carry secrets:
 * PlatformError holds method, path, status and the API's message only (got's own errors hold
 * the request options, API key included).
 */
import type { CrmError } from './crmRecords.js';

/** A usage or configuration problem: one line naming the input and what is wrong. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** The next commands to run, when this error knows better than its kind's (ERROR_TABLE). */
  constructor(
    message: string,
    readonly actions?: string[],
  ) {
    super(message);
  }
}

/**
 * not_found: the platform's own not-found answer (the record is gone). not_platform: a 404 in
 * any other shape (an HTML page, an empty body, foreign JSON): the URL does not reach the API,
 * which says nothing about the record.
 */
export type PlatformErrorKind = 'not_found' | 'not_platform' | 'auth' | 'bad_request' | 'rate_limited' | 'server' | 'network' | 'timeout' | 'invalid_response';

export class PlatformError extends Error {
  override readonly name = 'PlatformError';
  /** No answer at all: the host asked and what was tried ("from https://... (5 attempts over 6.8 s)"), for the run's last line. */
  unanswered?: string;
  constructor(
    readonly kind: PlatformErrorKind,
    readonly method: string,
    readonly path: string,
    readonly status: number | undefined,
    readonly apiMessage: string,
  ) {
    super(`${method} ${path}${status === undefined ? '' : ` -> ${status}`}: ${apiMessage}`);
  }

  /** 401/403: the key or the URL is wrong, no record can succeed (the table below decides). */
  get fatal(): boolean {
    return isFatal(this);
  }

  toJSON(): Record<string, unknown> {
    return { kind: this.kind, method: this.method, path: this.path, status: this.status, message: this.apiMessage };
  }
}

/** Typed Salesforce errors. Messages never carry tokens, secrets or passwords. */
export class SalesforceError extends Error {
  /** No answer at all: the host asked and what was tried, for the run's last line (not the record's reason). */
  unanswered?: string;
  constructor(
    readonly code: string,
    message: string,
    readonly fields: string[] = [],
  ) {
    super(message);
    this.name = 'SalesforceError';
  }

  toCrmError(): CrmError {
    return this.fields.length ? { code: this.code, message: this.message, fields: this.fields } : { code: this.code, message: this.message };
  }
}

/** Authentication could not be established or renewed: a configuration problem, not a record's. */
export class SalesforceAuthError extends SalesforceError {
  constructor(message: string) {
    super('SALESFORCE_AUTH', message);
    this.name = 'SalesforceAuthError';
  }
}

/** The run must stop: the daily API allowance is (nearly) used up. */
export class ApiLimitError extends SalesforceError {
  constructor(
    message: string,
    readonly used?: number,
    readonly limit?: number,
  ) {
    super('API_LIMIT', message);
    this.name = 'ApiLimitError';
  }
}

/**
 * The org refuses every write of an object, for a cause doctor's own checks confirm (a field
 * missing or hidden, a field the user may not edit, the object absent): a run stops before its
 * next write, since every later batch would fail the same way. A configuration problem (exit 2),
 * though records of other objects may have been written before it: the message says what stood.
 */
export class OrgSetupError extends Error {
  override readonly name = 'OrgSetupError';
  constructor(
    readonly object: string,
    message: string,
  ) {
    super(message);
  }
}

/** The webhook queue's database cannot be used (unreachable, refused, wrong schema); names it without a password. */
export class QueueError extends Error {
  override readonly name: string = 'QueueError';
  constructor(
    message: string,
    /** The database's own error code (SQLSTATE), when it gave one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * A destructive step whose premise did not hold (audit's guards: another site, an empty list, too
 * many deletions): refused before anything was written. The message names the counts, the likely
 * cause and the flag that allows it.
 */
export class RefusedError extends Error {
  override readonly name = 'RefusedError';
  constructor(
    message: string,
    readonly actions?: string[],
  ) {
    super(message);
  }
}

/**
 * 0 all done; 1 some records failed (the rest written); 2 usage or configuration, nothing written;
 * 3 the one record `object` was asked for is not on the platform (a 404), nothing written;
 * 69 the platform or Salesforce did not answer (sysexits' EX_UNAVAILABLE), nothing written;
 * 75 another run holds the state (sysexits' EX_TEMPFAIL: try again later), nothing done;
 * 129 / 130 / 143 stopped by SIGHUP (the terminal closed) / Ctrl-C (SIGINT) / SIGTERM, the shell's
 * 128 + signal number.
 */
export const EXIT = { OK: 0, PARTIAL: 1, USAGE: 2, NOT_FOUND: 3, UNREACHABLE: 69, LOCKED: 75, HANGUP: 129, INTERRUPTED: 130, TERMINATED: 143 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * How bad an exit is, for a command that ran several connections: a stop by a signal first (the
 * run did not finish), then a connection that could not run (2), one whose other side did not
 * answer (69), one that ran short (1), a record not found (3), one that was busy with another run
 * (75: cron tries again), then success.
 */
const EXIT_SEVERITY: readonly ExitCode[] = [EXIT.OK, EXIT.LOCKED, EXIT.NOT_FOUND, EXIT.PARTIAL, EXIT.UNREACHABLE, EXIT.USAGE, EXIT.HANGUP, EXIT.TERMINATED, EXIT.INTERRUPTED];

/** The worst of several exit codes (EXIT_SEVERITY), 0 for none. */
export function worstExit(codes: readonly ExitCode[]): ExitCode {
  return codes.reduce<ExitCode>((worst, c) => (EXIT_SEVERITY.indexOf(c) > EXIT_SEVERITY.indexOf(worst) ? c : worst), EXIT.OK);
}

/**
 * The signals that stop a run cleanly. SIGHUP (the SSH window or terminal closed) is one: a run
 * tied to a terminal that is gone saves its progress and hands its work back as for SIGTERM; one
 * that must outlive its terminal is started under a service manager, tmux or `setsid` (Node resets
 * the SIGHUP that `nohup` ignores, so nohup does not keep it alive anyway).
 */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';
export const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** The exit code of a run stopped by a signal. */
export function exitOfSignal(signal: StopSignal): ExitCode {
  return signal === 'SIGINT' ? EXIT.INTERRUPTED : signal === 'SIGHUP' ? EXIT.HANGUP : EXIT.TERMINATED;
}

/** How a stop is named in lines: Ctrl-C, SIGTERM, or SIGHUP (the terminal closed). */
export function signalName(signal: StopSignal): string {
  return signal === 'SIGINT' ? 'Ctrl-C' : signal === 'SIGHUP' ? 'SIGHUP (terminal closed)' : signal;
}

/**
 * The user stopped the run (Ctrl-C, or SIGTERM from a service manager): no later record is
 * started. The message says what was done by then; `actions` holds the command that resumes.
 */
export class InterruptedError extends Error {
  override readonly name = 'InterruptedError';
  constructor(
    readonly signal: StopSignal,
    message = `stopped by ${signalName(signal)}`,
    readonly actions?: string[],
  ) {
    super(message);
  }
}

/**
 * Another run (sync, object, replay, audit --fix/--delete-orphans) holds the lock of the same
 * state: this one did nothing. The message names the one running (pid, start time, command).
 */
export class RunLockedError extends Error {
  override readonly name = 'RunLockedError';
}

/**
 * A server answered with a redirect (to another host, or the same): no client of this tool
 * follows one, so no API key or token reaches a host it was not given for. The message names both.
 */
export class RedirectError extends Error {
  override readonly name = 'RedirectError';
  readonly code = 'ERR_REDIRECT';
}

/** The proxy of HTTPS_PROXY / HTTP_PROXY refused or did not answer: the message names it (no credentials). */
export class ProxyError extends Error {
  override readonly name = 'ProxyError';
  readonly code = 'ERR_PROXY';
}

/**
 * An answer longer than its client's bound (httpRules.ts ANSWER_LIMIT_BYTES), counted after any
 * decompression: not read further, so a huge page or a gzip bomb costs a bound, not the memory.
 * The message names the host and the bound.
 */
export class AnswerTooLargeError extends Error {
  override readonly name = 'AnswerTooLargeError';
  readonly code = 'ERR_ANSWER_TOO_LARGE';
}

/** A host whose TLS certificate is not trusted (self-signed, an unknown CA, another host's): the message names the host and the setting. */
export class CertificateError extends Error {
  override readonly name = 'CertificateError';
  readonly code = 'ERR_CERTIFICATE';
}

interface ErrorRule {
  /** What went wrong, in a word (the --json error's `name` stays the class name). */
  kind: string;
  matches(error: unknown): boolean;
  /** No record after it can succeed: a run stops, a webhook batch fails whole. */
  fatal: boolean;
  /** The exit code of a command this error ends before anything was written. */
  exit: ExitCode;
  /** What to run or fix next (the --json error's `actions`). */
  actions: string[];
  /** The line a person reads, when the message alone says too little. */
  describe?: (message: string, error: unknown) => string;
}

/** " from https://... (5 attempts over 6.8 s)" when the client said so; kept out of the message, which groups records by reason. */
const triedOf = (e: unknown): string => ((e instanceof PlatformError || e instanceof SalesforceError) && e.unanswered !== undefined ? ` ${e.unanswered}` : '');

/** Every error that means more than "this record failed", first match wins; the rest: OTHER_ERROR. */
const ERROR_TABLE: readonly ErrorRule[] = [
  { kind: 'usage', matches: (e) => e instanceof ConfigError, fatal: true, exit: EXIT.USAGE, actions: ['svc-sync --help'] },
  { kind: 'org-setup-stop', matches: (e) => e instanceof OrgSetupError, fatal: true, exit: EXIT.USAGE, actions: ['svc-sync doctor'] },
  {
    kind: 'platform-auth',
    matches: (e) => e instanceof PlatformError && e.kind === 'auth',
    fatal: true,
    exit: EXIT.USAGE,
    actions: ['check SVC_API_KEY and SVC_API_URL', 'svc-sync doctor'],
    // The hint once: the client's message may already say which setting to check.
    describe: (m) => `platform API rejected the key or URL: ${m}${/check SVC_/.test(m) ? '' : ' (check SVC_API_KEY and SVC_API_URL)'}`,
  },
  { kind: 'refused', matches: (e) => e instanceof RefusedError, fatal: true, exit: EXIT.USAGE, actions: ['svc-sync audit   (read-only: see what differs)', 'svc-sync doctor'] },
  { kind: 'salesforce-auth', matches: (e) => e instanceof SalesforceAuthError, fatal: true, exit: EXIT.USAGE, actions: ['check the SF_* settings', 'svc-sync doctor'] },
  {
    kind: 'redirect',
    matches: (e) => e instanceof RedirectError,
    fatal: true,
    exit: EXIT.USAGE,
    actions: ['check SVC_API_URL, SF_INSTANCE_URL and SF_LOGIN_URL, and any proxy in between', 'svc-sync doctor'],
  },
  {
    kind: 'proxy',
    matches: (e) => e instanceof ProxyError,
    fatal: true,
    exit: EXIT.USAGE,
    actions: ['check HTTPS_PROXY, HTTP_PROXY and NO_PROXY', 'svc-sync doctor'],
  },
  {
    kind: 'certificate',
    matches: (e) => e instanceof CertificateError,
    fatal: true,
    exit: EXIT.USAGE,
    actions: ["give the CA's certificate in NODE_EXTRA_CA_CERTS, or check SVC_API_URL, SF_INSTANCE_URL and SF_LOGIN_URL", 'svc-sync doctor'],
  },
  {
    // The host answered, but with more than any page of its API holds: the next request would too.
    kind: 'answer-too-large',
    matches: (e) => e instanceof AnswerTooLargeError,
    fatal: true,
    exit: EXIT.UNREACHABLE,
    actions: ['check SVC_API_URL, SF_INSTANCE_URL and SF_LOGIN_URL, and any proxy in between', 'svc-sync doctor'],
  },
  { kind: 'queue', matches: (e) => e instanceof QueueError, fatal: true, exit: EXIT.USAGE, actions: ['check SVC_QUEUE_URL (or SVC_QUEUE_PATH) and that the database is reachable', 'svc-sync queue'] },
  {
    kind: 'interrupted',
    matches: (e) => e instanceof InterruptedError && e.signal === 'SIGINT',
    fatal: true,
    exit: EXIT.INTERRUPTED,
    actions: ['run the same command again: it resumes'],
  },
  {
    kind: 'terminated',
    matches: (e) => e instanceof InterruptedError && e.signal === 'SIGTERM',
    fatal: true,
    exit: EXIT.TERMINATED,
    actions: ['run the same command again: it resumes'],
  },
  {
    kind: 'hangup',
    matches: (e) => e instanceof InterruptedError && e.signal === 'SIGHUP',
    fatal: true,
    exit: EXIT.HANGUP,
    actions: ['run the same command again: it resumes'],
  },
  {
    kind: 'locked',
    matches: (e) => e instanceof RunLockedError,
    fatal: true,
    exit: EXIT.LOCKED,
    actions: ['wait for the running one to finish (this run did nothing)', 'add --wait to queue behind it'],
  },
  {
    // Not fatal for one record (a dropped connection mid-run fails that batch); a run it ends
    // before anything was written exits 69, and the message names the host and what was tried.
    kind: 'platform-unreachable',
    matches: (e) => e instanceof PlatformError && (e.kind === 'network' || e.kind === 'timeout'),
    fatal: false,
    exit: EXIT.UNREACHABLE,
    actions: ['svc-sync doctor', 'run the same command again once the platform answers'],
    describe: (m, e) => `the platform API did not answer: ${m}${triedOf(e)}; check that it is up and that SVC_API_URL points at it`,
  },
  {
    // A 2xx that is not the API's answer (a login page, a captive portal): the URL is wrong.
    kind: 'not-salesforce-api',
    matches: (e) => e instanceof SalesforceError && e.code === 'NOT_SALESFORCE_API',
    fatal: true,
    exit: EXIT.USAGE,
    actions: ['check SF_INSTANCE_URL (or SF_LOGIN_URL) and any proxy in between', 'svc-sync doctor'],
  },
  {
    kind: 'salesforce-unreachable',
    matches: (e) => e instanceof SalesforceError && e.code === 'NETWORK_ERROR',
    fatal: false,
    exit: EXIT.UNREACHABLE,
    actions: ['svc-sync doctor', 'run the same command again once Salesforce answers'],
    // The OAuth token request names its login URL: then that is the setting to check.
    describe: (m, e) => `Salesforce did not answer: ${m}${triedOf(e)}; check that it is up and that ${m.startsWith('login URL ') ? 'SF_LOGIN_URL' : 'SF_INSTANCE_URL (or SF_LOGIN_URL)'} points at it`,
  },
  {
    // A field missing or hidden by field-level security: every retry fails the same way; doctor
    // names the fix. A run it stops is stopped by the org's setup (README: exit 2), as org-setup-stop.
    kind: 'org-setup',
    matches: (e) => e instanceof SalesforceError && ['INVALID_FIELD', 'INVALID_FIELD_FOR_INSERT_UPDATE', 'INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY'].includes(e.code),
    fatal: false,
    exit: EXIT.USAGE,
    actions: ['svc-sync doctor'],
  },
  { kind: 'api-limit', matches: (e) => e instanceof ApiLimitError, fatal: true, exit: EXIT.PARTIAL, actions: ['run the same command again after the 24-hour window rolls over'] },
];

/** Anything else: the records it touched failed, the run's other records stand. */
const OTHER_ERROR: ErrorRule = { kind: 'error', matches: () => true, fatal: false, exit: EXIT.PARTIAL, actions: [] };

function ruleOf(error: unknown): ErrorRule {
  return ERROR_TABLE.find((r) => r.matches(error)) ?? OTHER_ERROR;
}

export const isFatal = (error: unknown): boolean => ruleOf(error).fatal;

export const exitCodeOf = (error: unknown): ExitCode => ruleOf(error).exit;

/** A stop the org's setup caused (a field missing or hidden, doctor's checks confirmed): exit 2, whatever was written before. */
export const isOrgSetup = (error: unknown): boolean => ['org-setup', 'org-setup-stop'].includes(ruleOf(error).kind);

/** What to run or fix next: the error's own advice, else its kind's. */
export function actionsOf(error: unknown): string[] {
  const own = error instanceof ConfigError || error instanceof InterruptedError || error instanceof RefusedError ? error.actions : undefined;
  return own !== undefined ? [...own] : [...ruleOf(error).actions];
}

/** The error's own message (a queue's last_error, a record's reason). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One line for a person: what the table says the error means, or the message's first line.
 * Secrets are masked (`redact`) before the text is cut: a secret cut at a line break would no
 * longer match its mask.
 */
export function describeError(error: unknown, redact: (text: string) => string = (t) => t): string {
  const rule = ruleOf(error);
  const text = rule.describe ? rule.describe(messageOf(error), error) : messageOf(error);
  return redact(text).split(/\r?\n/)[0] ?? '';
}
