import type { Command } from 'commander';
import { ConfigError } from '../../config/errors.js';
import { quote } from '../../config/quote.js';
import { parseObjectType } from '../../mapping/objects.js';
import type { GlobalOptions } from '../globals.js';
import { commandContext, runWithEngine, type RunOptions } from '../runSync.js';
import { addRunOptions } from './runOptions.js';

export function objectCommand(program: Command, setExit: (code: number) => void): void {
  const cmd = program
    .command('object')
    .description('sync one record and any parent missing from Salesforce')
    .argument('<type>', 'object type: segment, project, team, company, action, donation, newsletter_subscription (plural, kebab and Pascal forms too)')
    .argument('<id>', 'the platform id')
    .addHelpText('after', '\nExamples:\n  svc-sync object donation 123\n  svc-sync --dry-run object newsletter-subscriptions 7');
  addRunOptions(cmd).action(async (typeArg: string, idArg: string, opts: RunOptions, c: Command) => {
    const type = parseObjectType(typeArg);
    if (!type) throw new ConfigError(`object type ${quote(typeArg)}: unknown (try donation, action, team, company, project, segment, newsletter_subscription)`);
    if (!/^\d+$/.test(idArg) || Number(idArg) < 1 || !Number.isSafeInteger(Number(idArg))) throw new ConfigError(`object id ${quote(idArg)}: must be a positive whole number`);
    const ctx = commandContext(c.optsWithGlobals<GlobalOptions>());
    setExit(await runWithEngine('object', ctx, opts, (engine) => engine.syncRefs([{ type, id: Number(idArg) }])));
  });
}
