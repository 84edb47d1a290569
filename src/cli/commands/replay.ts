import fs from 'node:fs';
import type { Command } from 'commander';
import { ConfigError } from '../../config/errors.js';
import { quote } from '../../config/quote.js';
import { EXIT } from '../exit.js';
import type { GlobalOptions } from '../globals.js';
import { parseReplay } from '../replayFile.js';
import { commandContext, runWithEngine, type RunOptions } from '../runSync.js';
import { addRunOptions } from './runOptions.js';

function readInput(file: string): string {
  try {
    return fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    throw new ConfigError(`--file ${quote(file)}: cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

export function replayCommand(program: Command, setExit: (code: number) => void): void {
  const cmd = program
    .command('replay')
    .description('sync every record listed in a file (CSV object_type,object_id or JSON lines of webhook bodies), each once, parents first')
    .requiredOption('--file <path>', 'the file to replay; - reads standard input')
    .addHelpText('after', '\nExamples:\n  svc-sync replay --file ids.csv\n  grep donations webhooks.jsonl | svc-sync replay --file - --json');
  addRunOptions(cmd).action(async (opts: RunOptions & { file: string }, c: Command) => {
    const input = parseReplay(readInput(opts.file));
    const ctx = commandContext(c.optsWithGlobals<GlobalOptions>());
    const warnings = input.badLines.map((b) => `line ${b.line}: ${b.reason} (skipped)`);
    if (input.refs.length === 0 && input.badLines.length > 0) {
      throw new ConfigError(`--file ${quote(opts.file)}: no valid line (${warnings[0]})`);
    }
    for (const w of warnings) ctx.out.info(`warning: ${w}`);
    const code = await runWithEngine(
      'replay',
      ctx,
      opts,
      async (engine) => {
        await engine.syncRefs(input.refs);
        return { input: { records: input.refs.length, duplicates: input.duplicates, badLines: input.badLines } };
      },
      ctx.globals.json ? warnings : [],
      // Bad lines mean part of the input was not synced: not a clean run, in the --json status too.
      input.badLines.length > 0 ? EXIT.PARTIAL : EXIT.OK,
    );
    setExit(code);
  });
}
