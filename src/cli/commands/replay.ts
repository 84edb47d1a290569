import type { Command } from 'commander';
import type { SetExit } from '../runner.js';
import type { RunOptions } from '../runEngine.js';
import { addRunOptions } from './runOptions.js';
import { helpAfter } from '../helpText.js';

/** Help after replay's options. */
const REPLAY_HELP = helpAfter({
  prose: [
    'The file is read as a stream and synced in chunks of --batch-size records, so its size does not matter.',
    'Ids that a complete list scan of this run did not return are reported not found without a request each.',
    'JSON lines are read as serve reads a webhook: events serve ignores are counted as ignored (exit 0); users.update re-syncs the actions the user owns, found by one scan of the action list for all such lines.',
  ],
  examples: ['svc-sync replay --file ids.csv', 'grep donations webhooks.jsonl | svc-sync replay --file - --json'],
});

export function replayCommand(program: Command, setExit: SetExit): void {
  const cmd = program
    .command('replay')
    .description('sync every record listed in a file (CSV object_type,object_id or JSON lines of webhook bodies), each once, parents first')
    .requiredOption('--file <path>', 'the file to replay; - reads standard input')
    .addHelpText('after', REPLAY_HELP);
  // The work in its own chunk: --help and option errors never load it.
  addRunOptions(cmd).action(async (opts: RunOptions & { file: string }, c: Command) => (await import('./replayRun.js')).replayAction(opts, c, setExit));
}
