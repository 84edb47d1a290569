/** The commander program: global options and one file per command. */
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { oneLine } from '../config/echo.js';
import { addGlobalOptions } from './globals.js';
import { objectCommand } from './commands/object.js';
import { replayCommand } from './commands/replay.js';
import { syncCommand } from './commands/sync.js';
import { schemaCommand } from './commands/schema.js';
import { doctorCommand } from './commands/doctor.js';
import { queueCommand } from './commands/queue.js';
import { serveCommand } from './commands/serve.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('svc-sync')
    .description('Keep a Salesforce org an exact, linked mirror of the fundraising platform.')
    .version(version(), '-V, --version')
    .showHelpAfterError('(run svc-sync --help for usage)')
    .configureOutput({
      writeOut: (s) => process.stdout.write(s),
      writeErr: (s) => process.stderr.write(s),
      // Commander's errors quote the argument they refuse: escaped and bounded like every other echo.
      outputError: (s, write) => write(`${oneLine(s.replace(/\n$/, ''), 300)}\n`),
    })
    .exitOverride();
  addGlobalOptions(program);
  program.addHelpText(
    'after',
    '\nSettings come from flags, then environment variables, then svc-sync.config.json:\n' +
      '  SVC_API_URL, SVC_API_KEY, SF_INSTANCE_URL + SF_ACCESS_TOKEN, or SF_LOGIN_URL + SF_CLIENT_ID + SF_CLIENT_SECRET\n' +
      '  (+ SF_USERNAME + SF_PASSWORD, or SF_USERNAME + SF_PRIVATE_KEY_FILE for JWT), SF_API_VERSION.\n' +
      'Exit codes: 0 all done, 1 some records failed (the rest written), 2 usage or configuration error.',
  );
  objectCommand(program, setExit);
  replayCommand(program, setExit);
  syncCommand(program, setExit);
  schemaCommand(program, setExit);
  doctorCommand(program, setExit);
  serveCommand(program, setExit);
  queueCommand(program, setExit);
  return program;
}
