import type { Command } from 'commander';
import { echo } from '../../config/echo.js';
import { ConfigError } from '../../model/errors.js';
import { parseObjectType } from '../../model/objects.js';
import { keyFor, parsePositiveId } from '../../model/refs.js';
import { runCommand, type SetExit } from '../runner.js';
import { runEngine, type RunOptions } from '../runEngine.js';
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
        prose: ['Exit codes: 0 written or unchanged (or skipped by a rule of the spec); 1 not found on the platform, or failed; 2 usage.'],
        examples: ['svc-sync object donation 123', 'svc-sync --dry-run object newsletter-subscriptions 7'],
      }),
    );
  addRunOptions(cmd).action(async (typeArg: string, idArg: string, opts: RunOptions, c: Command) => {
    const type = parseObjectType(typeArg);
    if (!type) throw new ConfigError(`object type ${echo(typeArg)}: unknown (try donation, action, team, company, project, segment, newsletter_subscription)`);
    const id = parsePositiveId(idArg);
    if (id === undefined) throw new ConfigError(`object id ${echo(idArg)}: must be a positive whole number`);
    // The one record asked for is not on the platform: the command did not do what was asked (exit 1);
    // replay and sync, which take many, count such records as skips.
    let missing = false;
    await runCommand(c, setExit, (ctx) =>
      runEngine(ctx, {
        command: 'object',
        opts,
        shortfall: () => (missing ? `${type} ${id} is not on the platform (deleted or never existed)` : undefined),
        body: async (engine) => {
          await engine.syncRefs([{ type, id }]);
          const outcome = engine.report.outcomeOf(keyFor(type, id));
          missing = outcome?.action === 'skip' && (outcome.reason ?? '').startsWith('not found on the platform');
          return missing ? { notFound: `${type} ${id}: not found on the platform` } : {};
        },
      }),
    );
  });
}
