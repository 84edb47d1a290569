/** The commander program: global options and one file per command. */
import { Command, Help } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { helpAfter, newcomerFirst } from './helpText.js';
import { addGlobalOptions, CRON_RECIPE } from './globals.js';
import { objectCommand } from './commands/object.js';
import { replayCommand } from './commands/replay.js';
import { syncCommand } from './commands/sync.js';
import { auditCommand } from './commands/audit.js';
import { schemaCommand } from './commands/schema.js';
import { doctorCommand } from './commands/doctor.js';
import { queueCommand } from './commands/queue.js';
import { serveCommand } from './commands/serve.js';
import { deployCommand } from './commands/deploy.js';
import { keysCommand } from './commands/keys.js';

function version(): string {
  // dist/cli.js when bundled, dist/src/cli/ when built, src/cli/ when run from source (tests).
  for (const up of ['../package.json', '../../package.json', '../../../package.json']) {
    const file = new URL(up, import.meta.url);
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return '0.0.0';
}

export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('svc-sync')
    .description('Keep a Salesforce org an exact, linked mirror of the fundraising platform.')
    .version(version(), '-V, --version')
    // Global options are listed once, here; each subcommand's help names them in one line.
    // A boolean flag's "(default: false)" says nothing: left out.
    .configureHelp({
      optionDescription: (o) => (o.defaultValue === false ? o.description : new Help().optionDescription(o)),
      // The top-level help leads with usage and the commands a newcomer needs, then the rest.
      formatHelp: (cmd, helper) => (cmd.parent === null ? newcomerFirst(new Help().formatHelp(cmd, helper)) : new Help().formatHelp(cmd, helper)),
    })
    .configureOutput({
      writeOut: (s) => process.stdout.write(s),
      writeErr: (s) => process.stderr.write(s),
      // Commander's errors are said by main(), in the form of every other error (`svc-sync: ...`,
      // stamped in a log, `exit 2: ...; next: ...` with --json): commander itself writes nothing.
      outputError: () => undefined,
    })
    .exitOverride();
  addGlobalOptions(program);
  program.addHelpText(
    'after',
    helpAfter({
      prose: [
        'Settings come from flags, then environment variables, then svc-sync.config.json: SVC_API_URL, SVC_API_KEY, SF_INSTANCE_URL + SF_ACCESS_TOKEN, or SF_LOGIN_URL + SF_CLIENT_ID + SF_CLIENT_SECRET (+ SF_USERNAME + SF_PASSWORD, or SF_USERNAME + SF_PRIVATE_KEY_FILE for JWT), SF_API_VERSION.',
        'Exit codes: 0 all done, 1 some records failed (the rest written), 2 usage or configuration error, 3 `object`: the record is not on the platform, 69 the platform or Salesforce did not answer (nothing written), 75 another run holds the state folder (this one did nothing; cron tries again), 129 stopped by SIGHUP (the terminal closed), 130 stopped by Ctrl-C, 143 stopped by SIGTERM (run the same command again to resume).',
      ],
      examples: ['svc-sync doctor', 'svc-sync --dry-run sync --all', CRON_RECIPE],
    }),
  );
  objectCommand(program, setExit);
  replayCommand(program, setExit);
  syncCommand(program, setExit);
  auditCommand(program, setExit);
  schemaCommand(program, setExit);
  doctorCommand(program, setExit);
  serveCommand(program, setExit);
  queueCommand(program, setExit);
  deployCommand(program, setExit);
  keysCommand(program, setExit);
  const globalNames = program.options
    .map((o) => o.long ?? o.short ?? '')
    .filter((n) => n !== '--version')
    .join(', ');
  const nameGlobals = (cmd: Command): void => {
    for (const sub of cmd.commands) {
      sub.addHelpText('after', helpAfter({ prose: [`Global options (see svc-sync --help): ${globalNames}`] }));
      nameGlobals(sub);
    }
  };
  nameGlobals(program);
  return program;
}
