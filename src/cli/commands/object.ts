import type { Command } from 'commander';
import { echo } from '../../config/echo.js';
import { ConfigError } from '../../model/errors.js';
import { parseObjectType } from '../../model/objects.js';
import { parsePositiveId } from '../../model/refs.js';
import { runCommand, type SetExit } from '../runner.js';
import { runEngine, type RunOptions } from '../runSync.js';
import { addRunOptions } from './runOptions.js';

export function objectCommand(program: Command, setExit: SetExit): void {
  const cmd = program
    .command('object')
    .description('sync one record and any parent missing from Salesforce')
    .argument('<type>', 'object type: segment, project, team, company, action, donation, newsletter_subscription (plural, kebab and Pascal forms too)')
    .argument('<id>', 'the platform id')
    .addHelpText('after', '\nExamples:\n  svc-sync object donation 123\n  svc-sync --dry-run object newsletter-subscriptions 7');
  addRunOptions(cmd).action(async (typeArg: string, idArg: string, opts: RunOptions, c: Command) => {
    const type = parseObjectType(typeArg);
    if (!type) throw new ConfigError(`object type ${echo(typeArg)}: unknown (try donation, action, team, company, project, segment, newsletter_subscription)`);
    const id = parsePositiveId(idArg);
    if (id === undefined) throw new ConfigError(`object id ${echo(idArg)}: must be a positive whole number`);
    await runCommand(c, setExit, (ctx) =>
      runEngine(ctx, {
        command: 'object',
        opts,
        body: async (engine) => {
          await engine.syncRefs([{ type, id }]);
          return {};
        },
      }),
    );
  });
}
