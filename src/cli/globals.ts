/** Global options shared by every command, and the flags that override settings. */
import type { Command } from 'commander';
import type { RawSettings } from '../config/load.js';
import { SETTINGS, type SettingName, type SettingRow } from '../config/settingsTable.js';

export interface GlobalOptions {
  json: boolean;
  /** --json on one line (JSON Lines): one line per run in a log. */
  jsonLines: boolean;
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
  /** --connection NAME: the connection of the config file to act on. */
  connection?: string;
}

/**
 * The one cron recipe (help and the docs agree): one JSON line per run to a log, stderr left to
 * cron's mail. With --quiet a run that succeeds writes nothing to stderr, so cron mails only the
 * one line a failed or partial run writes (its outcome and the fix).
 */
export const CRON_RECIPE = '*/15 * * * * cd /srv/svc-sync && svc-sync sync --json-lines -q >> sync.jsonl';

/** commander's property for a flag: --api-url -> apiUrl. */
const optionOf = (flag: string): string => (flag.split(' ')[0] ?? '').replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The global setting flags, from the settings table (only non-secret settings have one). */
const SETTING_FLAGS: ReadonlyArray<{ flag: string; option: string; setting: SettingName; help: string }> = (SETTINGS as readonly SettingRow[]).flatMap((r) =>
  r.flag === undefined
    ? []
    : [{ flag: r.flag, option: optionOf(r.flag), setting: r.name as SettingName, help: `${r.help} (env ${r.name}${r.default === undefined ? '' : `, default: ${r.default}`})` }],
);

export function addGlobalOptions(program: Command): Command {
  program
    .option('--json', 'print one JSON document on stdout ({status, result, warnings}) and nothing else there', false)
    .option('--json-lines', 'as --json, on one line: one line per run in a log (JSON Lines)', false)
    .option('--dry-run', 'write nothing; show what would change', false)
    .option('-v, --verbose', 'list every insert and update on stdout, and each warning on stderr', false)
    .option('-q, --quiet', 'no progress nor report; errors and what explains a non-zero exit still go to stderr', false)
    .option('--config <path>', 'JSON config file (default: ./svc-sync.config.json if present)');
  for (const f of SETTING_FLAGS) program.option(f.flag, f.help);
  return program;
}

export function settingFlags(opts: GlobalOptions): RawSettings {
  const out: RawSettings = {};
  const given = opts as unknown as Record<string, unknown>;
  for (const f of SETTING_FLAGS) {
    const v = given[f.option];
    if (typeof v === 'string') out[f.setting] = v;
  }
  return out;
}
