import type { Command } from 'commander';
import type { SetExit } from '../runner.js';
import type { RunOptions } from '../runEngine.js';
import { addRunOptions } from './runOptions.js';
import { helpAfter } from '../helpText.js';

export function objectCommand(program: Command, setExit: SetExit): void {
  const cmd = program
    .command('object')
    .description('sync one record and any parent missing from Salesforce')
    .argument('<type>', 'object type: segment, project, team, company, action, donation, newsletter_subscription (plural, kebab and Pascal forms too)')
    .argument('<id>', 'the platform id')
    .addHelpText(
      'after',
      helpAfter({
        prose: ['Exit codes: 0 written or unchanged (or skipped by a rule of the spec); 1 failed; 2 usage; 3 not on the platform (a 404).'],
        examples: ['svc-sync object donation 123', 'svc-sync --dry-run object newsletter-subscriptions 7'],
      }),
    );
  // The work in its own chunk: --help and option errors never load it.
  addRunOptions(cmd).action(async (typeArg: string, idArg: string, opts: RunOptions, c: Command) => (await import('./objectRun.js')).objectAction(typeArg, idArg, opts, c, setExit));
}
