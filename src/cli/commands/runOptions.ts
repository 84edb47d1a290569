import type { Command } from 'commander';

/** Options of every command that runs the engine (object, replay, sync). */
export function addRunOptions(cmd: Command): Command {
  return cmd
    .option('--force', 'write records even when Salesforce already holds the same values')
    .option('--strict-parents', 'skip records whose parent cannot be found, instead of writing them unlinked')
    .option('--report <file>', 'write every per-record outcome as CSV to this file')
    .option('--batch-size <n>', 'records of one type processed together (bounds memory)', undefined);
}
