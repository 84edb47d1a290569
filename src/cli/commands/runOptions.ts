import type { Command } from 'commander';
import { CLI_BATCH_SIZE, parseBatchSize } from '../runEngine.js';
import { parsedOption } from './optionRules.js';

/** Options of every command that runs the engine (object, replay, sync). */
export function addRunOptions(cmd: Command): Command {
  return cmd
    .option('--force', 'write records even when Salesforce already holds the same values')
    .option('--strict-parents', 'skip records whose parent cannot be found, instead of writing them unlinked')
    .option('--report <file>', 'write every per-record outcome as CSV to this file')
    .option('--wait', 'when another run holds the same state, wait for it instead of exiting 75')
    .addOption(parsedOption('--batch-size <n>', 'records of one type processed together (bounds memory)', parseBatchSize, { value: CLI_BATCH_SIZE, shown: String(CLI_BATCH_SIZE) }));
}
