/** Global options shared by every command, and the flags that override settings. */
import type { Command } from 'commander';
import type { RawSettings, SettingName } from '../config/load.js';

export interface GlobalOptions {
  json: boolean;
  dryRun: boolean;
  verbose: boolean;
  quiet: boolean;
  config?: string;
  apiUrl?: string;
  concurrency?: string;
  instanceUrl?: string;
  loginUrl?: string;
  apiVersion?: string;
  bulkThreshold?: string;
  logFormat?: string;
}

/**
 * The one cron recipe (help and README agree): the JSON document to a log, stderr (notices,
 * warnings, errors) left to cron's mail, so the log stays one JSON document per run.
 */
// Fits 80 columns with the help's indent: an example is never wrapped, so it can be copied.
export const CRON_RECIPE = '*/15 * * * * cd /srv/svc-sync && svc-sync sync --json --quiet >> sync.jsonl';

/** Setting flags: only non-secret settings, since a command line shows in `ps` and shell history. */
const SETTING_FLAGS: Array<{ flag: string; option: keyof GlobalOptions; setting: SettingName; help: string }> = [
  { flag: '--api-url <url>', option: 'apiUrl', setting: 'SVC_API_URL', help: 'platform base URL, /v1 is added (env SVC_API_URL)' },
  { flag: '--concurrency <n>', option: 'concurrency', setting: 'SVC_CONCURRENCY', help: 'platform requests in flight (env SVC_CONCURRENCY, default: 4)' },
  { flag: '--instance-url <url>', option: 'instanceUrl', setting: 'SF_INSTANCE_URL', help: 'Salesforce instance URL (env SF_INSTANCE_URL)' },
  { flag: '--login-url <url>', option: 'loginUrl', setting: 'SF_LOGIN_URL', help: 'Salesforce login URL for OAuth (env SF_LOGIN_URL, default: https://login.salesforce.com)' },
  { flag: '--api-version <v>', option: 'apiVersion', setting: 'SF_API_VERSION', help: 'Salesforce API version (env SF_API_VERSION, default: 62.0)' },
  { flag: '--log-format <format>', option: 'logFormat', setting: 'SVC_LOG_FORMAT', help: 'stderr lines as text or json, one object a line with time, level and msg (env SVC_LOG_FORMAT, default: text)' },
  { flag: '--bulk-threshold <n>', option: 'bulkThreshold', setting: 'SF_BULK_THRESHOLD', help: 'records of one object above which Bulk API 2.0 is used (env SF_BULK_THRESHOLD, default: 2000)' },
];

export function addGlobalOptions(program: Command): Command {
  program
    .option('--json', 'print one JSON document on stdout ({status, result, warnings}) and nothing else there', false)
    .option('--dry-run', 'write nothing; show what would change', false)
    .option('-v, --verbose', 'list every insert and update on stdout, and each warning on stderr', false)
    .option('-q, --quiet', 'no progress nor report; errors and what explains a non-zero exit still go to stderr', false)
    .option('--config <path>', 'JSON config file (default: ./svc-sync.config.json if present)');
  for (const f of SETTING_FLAGS) program.option(f.flag, f.help);
  return program;
}

export function settingFlags(opts: GlobalOptions): RawSettings {
  const out: RawSettings = {};
  for (const f of SETTING_FLAGS) {
    const v = opts[f.option];
    if (typeof v === 'string') out[f.setting] = v;
  }
  return out;
}
