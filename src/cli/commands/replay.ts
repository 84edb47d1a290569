import fs from 'node:fs';
import type { Command } from 'commander';
import { quote } from '../../config/quote.js';
import { ConfigError, EXIT } from '../../model/errors.js';
import { parseReplay } from '../../sync/replayInput.js';
import { runCommand, type SetExit } from '../runner.js';
import { runEngine, type RunOptions } from '../runSync.js';
import { addRunOptions } from './runOptions.js';

function readInput(file: string): string {
  try {
    return fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    throw new ConfigError(`--file ${quote(file)}: cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

export function replayCommand(program: Command, setExit: SetExit): void {
  const cmd = program
    .command('replay')
    .description('sync every record listed in a file (CSV object_type,object_id or JSON lines of webhook bodies), each once, parents first')
    .requiredOption('--file <path>', 'the file to replay; - reads standard input')
    .addHelpText('after', '\nExamples:\n  svc-sync replay --file ids.csv\n  grep donations webhooks.jsonl | svc-sync replay --file - --json');
  addRunOptions(cmd).action(async (opts: RunOptions & { file: string }, c: Command) => {
    const input = parseReplay(readInput(opts.file));
    await runCommand(c, setExit, (ctx) => {
      const warnings = input.badLines.map((b) => `line ${b.line}: ${b.reason} (skipped)`);
      if (input.refs.length === 0 && input.badLines.length > 0) {
        throw new ConfigError(`--file ${quote(opts.file)}: no valid line (${warnings[0]})`);
      }
      // Before the run, so a person sees them while it works.
      for (const w of warnings) ctx.out.info(`warning: ${w}`);
      return runEngine(ctx, {
        command: 'replay',
        opts,
        body: async (engine) => {
          await engine.syncRefs(input.refs);
          return { input: { records: input.refs.length, duplicates: input.duplicates, badLines: input.badLines } };
        },
        warningsBefore: ctx.globals.json ? warnings : [],
        // Bad lines mean part of the input was not synced: not a clean run, in the --json status too.
        minStatus: input.badLines.length > 0 ? EXIT.PARTIAL : EXIT.OK,
      });
    });
  });
}
