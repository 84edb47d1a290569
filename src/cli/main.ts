/** Entry point: runs the program; an error that ends a command gets its exit code and next steps from the model's table. */
import { stderrLine } from './output.js';
import { CommanderError, type Command } from 'commander';
import { redact } from '../config/load.js';
import { everySettingGroup } from '../config/connections.js';
import { EXIT, actionsOf, describeError, exitCodeOf } from '../model/errors.js';
import { isSqliteExperimentalWarning } from '../model/sqlite.js';
import { oneLine } from '../config/echo.js';
import { boundHeapGrowth } from './heap.js';
import { buildProgram } from './program.js';
import { guardStdio, withStdioStatus } from './stdio.js';

/** The --config file named on the command line, read before commander has parsed anything. */
function configPathOf(argv: string[]): string | undefined {
  const i = argv.indexOf('--config');
  if (i >= 0) return argv[i + 1];
  return argv.find((a) => a.startsWith('--config='))?.slice('--config='.length);
}

/** Secrets from the environment and from the config file (default or --config, every connection's) are redacted. */
function safeRedact(text: string, argv: string[]): string {
  for (const opts of [{ configPath: configPathOf(argv) }, {}]) {
    try {
      return everySettingGroup(opts).reduce((t, raw) => redact(t, raw), text);
    } catch {
      // The next reading, or the text as it is when no settings can be read at all.
    }
  }
  return text;
}

/** The --json error document: the Salesforce CLI's shape (with `actions`, the next commands to run), so scripts read one format. */
function writeJsonError(argv: string[], status: number, name: string, message: string, actions: string[], commanderSaidIt = false): void {
  const doc = { status, name, message, exitCode: status, warnings: [], actions };
  process.stdout.write(`${argv.includes('--json-lines') ? JSON.stringify(doc) : JSON.stringify(doc, null, 2)}\n`);
  // The document goes to a log: the one line cron mails goes to stderr (commander writes its own).
  if (!commanderSaidIt)
    process.stderr.write(`${stderrLine('error', `svc-sync: exit ${status}: ${message}${actions[0] === undefined || message.includes(actions[0]) ? '' : `; next: ${actions[0]}`}`)}\n`);
}

const wantsJson = (argv: string[]): boolean => argv.includes('--json') || argv.includes('--json-lines');

/** `svc-sync` and the subcommand words typed ("svc-sync queue retry"), for pointing to the right help. */
function commandPath(program: Command, argv: string[]): string {
  const words = ['svc-sync'];
  let cmd = program;
  for (const arg of argv.slice(2)) {
    const sub = cmd.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (!sub) continue;
    words.push(sub.name());
    cmd = sub;
  }
  return words.join(' ');
}

/**
 * Process warnings (a library's emitWarning: pg on `sslmode=require`, a deprecation) as one log
 * line in the chosen format, masked, instead of Node's raw lines: with --log-format json every
 * stderr line stays one JSON object. Node's own printer is replaced only when it is on (not
 * under --no-warnings). Node 22's note that node:sqlite is experimental is left out (see
 * model/sqlite.ts); every other warning is printed.
 */
function logWarnings(argv: string[]): void {
  if (process.listenerCount('warning') === 0) return;
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error) => {
    if (isSqliteExperimentalWarning(warning)) return;
    const text = `svc-sync: ${warning.name}: ${warning.message.replace(/\s*\n\s*/g, ' ')}`;
    process.stderr.write(`${stderrLine('warn', safeRedact(text, argv))}\n`);
  });
}

export async function main(argv: string[]): Promise<number> {
  guardStdio();
  logWarnings(argv);
  return withStdioStatus(await run(argv));
}

async function run(argv: string[]): Promise<number> {
  let code: number = EXIT.OK;
  const program = buildProgram((c) => {
    code = c;
  });
  // Before a command's work, not for --help or a usage error: setting the heap's growth loads
  // node:v8 (thirty of Node's modules), about a tenth of `--help`'s start.
  program.hook('preAction', () => {
    boundHeapGrowth();
  });
  try {
    await program.parseAsync(argv);
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here too, with their own code 0; commander printed its message.
      if (err.exitCode === 0) return EXIT.OK;
      // No command given: commander printed the help on stderr and threw its own "(outputHelp)", which says nothing.
      const message = err.code === 'commander.help' ? 'no command given: name one, e.g. svc-sync sync --all' : oneLine(err.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' '), 300);
      const help = `${commandPath(program, argv)} --help`;
      // Commander wrote nothing (program.ts): its errors read as every other error does.
      if (wantsJson(argv)) writeJsonError(argv, EXIT.USAGE, 'UsageError', message, [help], err.code === 'commander.help');
      else if (err.code !== 'commander.help') process.stderr.write(`${stderrLine('error', `svc-sync: ${message}; next: ${help}`)}\n`);
      return EXIT.USAGE;
    }
    const status = exitCodeOf(err);
    const message = oneLine(
      describeError(err, (t) => safeRedact(t, argv)),
      1000,
    );
    const json = wantsJson(argv);
    if (json) {
      // "svc-sync --help" names the help of the command that was run.
      const actions = actionsOf(err).map((a) => (a === 'svc-sync --help' ? `${commandPath(program, argv)} --help` : a));
      writeJsonError(
        argv,
        status,
        err instanceof Error ? err.name : 'Error',
        message,
        actions.map((a) => safeRedact(a, argv)),
      );
    } else {
      process.stderr.write(`${stderrLine('error', `svc-sync: ${message}`)}\n`);
    }
    if (process.env.SVC_SYNC_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${safeRedact(err.stack, argv)}\n`);
    return status;
  }
}
