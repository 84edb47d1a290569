import { Option, type Command } from 'commander';
import { ConfigError } from '../../model/errors.js';
import { DEFAULT_WAIT_MS, waitSpan } from '../../sync/run/runLock.js';
import { CLI_BATCH_SIZE, parseBatchSize } from '../runLimits.js';
import { parsedOption } from './optionRules.js';

/** `--wait 10m`: a number of seconds, or with s, m or h; from 1 s to 24 h. */
function parseWait(raw: string): number {
  const m = /^(\d+)(s|m|h)?$/.exec(raw.trim());
  const ms = m === null ? NaN : Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 's' | 'm' | 'h'];
  if (!(ms >= 1000 && ms <= 24 * 3_600_000)) throw new ConfigError(`--wait: "${raw}": give a duration such as 90s, 10m or 1h (1s to 24h)`);
  return ms;
}

/** `--wait [duration]`: bare, the default bound; `when` says for which runs of the command. */
export function waitOption(when = ''): Option {
  const help = `${when}when another run holds the same state, wait for it (at most the duration: 90s, 10m, 1h; default ${waitSpan(DEFAULT_WAIT_MS)}), then exit 75, instead of exiting 75 at once`;
  return new Option('--wait [duration]', help).argParser(parseWait);
}

/** Options of every command that runs the engine (object, replay, sync). */
export function addRunOptions(cmd: Command): Command {
  return cmd
    .option('--force', 'write records even when Salesforce already holds the same values')
    .option('--strict-parents', 'skip records whose parent cannot be found, instead of writing them unlinked')
    .option('--report <file>', 'write every per-record outcome as CSV to this file')
    .addOption(waitOption())
    .option('--new-org', "the login reaches another org (or site) than the state folder's, on purpose (a refreshed sandbox): forget the folder's progress and start over")
    .addOption(parsedOption('--batch-size <n>', 'records of one type processed together (bounds memory)', parseBatchSize, { value: CLI_BATCH_SIZE, shown: String(CLI_BATCH_SIZE) }));
}
