import type { Command } from 'commander';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, EXIT } from '../../model/errors.js';
import { helpAfter } from '../helpText.js';
import { runCommand, type SetExit } from '../runner.js';
import { DEFAULT_SERVE } from '../../webhook/serve.js';
import { parsedOption } from './optionRules.js';
import { port } from './serve.js';
import { systemdUnits, type UnitFile, type UnitPaths } from './systemdUnits.js';

const HELP = ['svc-sync deploy systemd --help'];

interface DeployOptions {
  out?: string;
  node?: string;
  cli?: string;
  port: number;
}

/** An absolute path ExecStart= reads as one word: no blanks, quotes, `%` specifiers or `$` variables. */
function execPath(flag: string, p: string, executable: boolean): string {
  if (!path.isAbsolute(p)) throw new ConfigError(`${flag} ${p}: not an absolute path`, HELP);
  if (/[\s"'\\%$;]/.test(p)) throw new ConfigError(`${flag} ${p}: holds a blank, a quote or one of % $ ; \\, which ExecStart= reads otherwise; install under a plain path`, HELP);
  try {
    fs.accessSync(p, executable ? fs.constants.X_OK : fs.constants.R_OK);
  } catch {
    throw new ConfigError(`${flag} ${p}: not ${executable ? 'an executable' : 'a readable'} file`, HELP);
  }
  return p;
}

/** This install: the Node running now and the CLI it was started as (symlinks resolved, as npm -g links it). */
function unitPaths(opts: DeployOptions): UnitPaths {
  const cli = opts.cli ?? fs.realpathSync(process.argv[1] ?? '');
  return { node: execPath('--node', opts.node ?? process.execPath, true), cli: execPath('--cli', cli, false), port: opts.port };
}

/** Written whole or not at all: each file goes to a temporary name first. */
function writeUnits(dir: string, files: UnitFile[]): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  const temps = files.map((f) => {
    const tmp = path.join(dir, `.${f.name}.${process.pid}.tmp`);
    fs.writeFileSync(tmp, f.text, { mode: 0o644 });
    return { tmp, to: path.join(dir, f.name) };
  });
  for (const { tmp, to } of temps) fs.renameSync(tmp, to);
}

/** systemd's ProtectHome=yes hides /home and /root, and User=svc-sync cannot read them anyway. */
const underHome = (p: UnitPaths): string[] =>
  [p.node, p.cli]
    .filter((f) => /^\/(home|root)\//.test(f))
    .map((f) => `${f} is under a home folder, which the units hide from the service (ProtectHome=yes): install Node and svc-sync outside /home and /root`);

export function deployCommand(program: Command, setExit: SetExit): void {
  const deploy = program
    .command('deploy')
    .description('write what runs svc-sync as a service on this machine')
    .addHelpText('after', helpAfter({ examples: ['svc-sync deploy systemd --out units'] }));
  deploy
    .command('systemd')
    .description('the systemd units (serve, and sync on a timer) for this install: ExecStart names this Node and this CLI by absolute path')
    .option('--out <dir>', 'write the three files there (default: print them)')
    .addOption(parsedOption('--port <n>', 'the port serve listens on', (raw) => port(raw), { value: DEFAULT_SERVE.port, shown: String(DEFAULT_SERVE.port) }))
    .option('--node <path>', 'the Node the units run (default: the one running this command)')
    .option('--cli <path>', "the CLI's bin/svc-sync.js (default: this one)")
    .addHelpText('after', helpAfter({ examples: ['svc-sync deploy systemd --out units', 'sudo cp units/* /etc/systemd/system/ && sudo systemctl daemon-reload'] }))
    .action((opts: DeployOptions, c: Command) => {
      const paths = unitPaths(opts);
      const files = systemdUnits(paths);
      return runCommand(
        c,
        setExit,
        async () => {
          if (opts.out !== undefined) writeUnits(opts.out, files);
          const names = files.map((f) => f.name);
          const text =
            opts.out === undefined
              ? files.map((f) => `### ${f.name}\n${f.text}`).join('\n')
              : [`wrote ${names.join(', ')} to ${opts.out}`, `next, as root: cp ${path.join(opts.out, '*')} /etc/systemd/system/ && systemctl daemon-reload`].join('\n');
          const warnings = underHome(paths);
          const written = opts.out === undefined ? {} : { outDir: opts.out };
          return { status: EXIT.OK, result: { command: 'deploy systemd', ...paths, ...written, files }, warnings, text, notes: warnings };
        },
        { readSettings: false, connections: 'deployment' },
      );
    });
}
