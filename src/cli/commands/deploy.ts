import type { Command } from 'commander';
import { helpAfter } from '../helpText.js';
import type { SetExit } from '../runner.js';
import { DEFAULT_SERVE } from '../../webhook/serveDefaults.js';
import { parsedOption } from './optionRules.js';
import { port } from './serve.js';

export interface DeployOptions {
  out?: string;
  node?: string;
  cli?: string;
  port: number;
}

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
    // The work in its own chunk: --help and option errors never load it.
    .action(async (opts: DeployOptions, c: Command) => (await import('./deployRun.js')).deployAction(opts, c, setExit));
}
