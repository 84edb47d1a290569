/** `object`'s work, loaded when the command runs (object.ts declares it). */
import type { Command } from 'commander';
import { echo } from '../../config/echo.js';
import { ConfigError } from '../../model/errors.js';
import { parseObjectType } from '../../model/objects.js';
import { keyFor, parsePositiveId } from '../../model/refs.js';
import { runCommand, type CommandContext, type SetExit } from '../runner.js';
import { runEngine, type RunOptions } from '../runEngine.js';

/** The record's page in Lightning Experience. */
const recordLink = (instanceUrl: string | undefined, object: string, id: string): string => `${(instanceUrl ?? '').replace(/\/+$/, '')}/lightning/r/${object}/${id}/view`;

export async function objectAction(typeArg: string, idArg: string, opts: RunOptions, c: Command, setExit: SetExit): Promise<void> {
  const type = parseObjectType(typeArg);
  if (!type) throw new ConfigError(`object type ${echo(typeArg)}: unknown (try donation, action, team, company, project, segment, newsletter_subscription)`);
  const id = parsePositiveId(idArg);
  if (id === undefined) throw new ConfigError(`object id ${echo(idArg)}: must be a positive whole number`);
  // The one record asked for is not on the platform: the command did not do what was asked (exit 1);
  // replay and sync, which take many, count such records as skips.
  let missing = false;
  let written: { object: string; salesforceId: string; link: string } | undefined;
  await runCommand(c, setExit, (ctx: CommandContext) =>
    runEngine(ctx, {
      command: 'object',
      opts,
      keepIdsOf: new Set([keyFor(type, id)]),
      notFound: () => (missing ? `${type} ${id} is not on the platform (deleted or never existed)` : undefined),
      body: async (engine, deps) => {
        const key = keyFor(type, id);
        // A record asked for by name is compared with the org, its gift too (as its mirror row is).
        deps.gifts?.compareEveryDonation();
        await engine.syncRefs([{ type, id }]);
        const outcome = engine.report.outcomeOf(key);
        missing = outcome?.action === 'skip' && (outcome.reason ?? '').startsWith('not found on the platform');
        if (missing) return { notFound: `${type} ${id}: not on the platform` };
        const sf = engine.salesforceRecord({ type, id });
        if (sf !== undefined) written = { object: sf.object, salesforceId: sf.id, link: recordLink(deps.org?.instanceUrl, sf.object, sf.id) };
        return written ? { salesforceId: written.salesforceId, link: written.link } : {};
      },
      // The record in Salesforce, found by its id (and opened by the link).
      after: () => (written ? [`${written.object} ${keyFor(type, id)}: Salesforce id ${written.salesforceId}`, ...(ctx.globals.verbose ? [written.link] : [])] : []),
    }),
  );
}
