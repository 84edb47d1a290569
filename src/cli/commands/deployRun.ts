/** `deploy systemd`'s work, loaded when the command runs (deploy.ts declares it). */
import type { Command } from 'commander';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, EXIT } from '../../model/errors.js';
import { runCommand, type SetExit } from '../runner.js';
import { systemdUnits, type UnitFile, type UnitPaths } from './systemdUnits.js';
import type { DeployOptions } from './deploy.js';

const HELP = ['svc-sync deploy systemd --help'];

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

export function deployAction(opts: DeployOptions, c: Command, setExit: SetExit): Promise<void> {
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
}
