/** `svc-sync keys qualify`'s work, loaded only when the command runs (keys.ts declares it). */
import type { Command } from 'commander';
import { settingsOf } from '../../config/load.js';
import { placeOf } from '../../config/connections.js';
import { claimOrg } from '../../config/orgRecord.js';
import { ConfigError, EXIT, RefusedError, type ExitCode } from '../../model/errors.js';
import { createKeyDeps } from '../../sync/compose.js';
import { KeyQualifier, type QualifyResult } from '../../sync/keys/qualify.js';
import { giftKeySources } from '../../sync/keys/giftKeySources.js';
import { logNote, logRun } from '../../sync/run/runLog.js';
import type { RunLock } from '../../sync/run/runLock.js';
import { renderKeys } from '../render/keysText.js';
import { lockRun } from '../runEngine.js';
import { runCommand, type CommandContext, type CommandResult, type SetExit } from '../runner.js';
import { RunSession } from '../runSession.js';
import type { QualifyOptions } from './keys.js';
import { sharingRefusal } from './keysGuard.js';

export function qualifyAction(opts: QualifyOptions, c: Command, setExit: SetExit): Promise<void> {
  return runCommand(c, setExit, (ctx) => qualify(ctx, opts), { connections: 'one' });
}

async function qualify(ctx: CommandContext, opts: QualifyOptions): Promise<CommandResult<QualifyResult>> {
  const settings = settingsOf(ctx.raw, placeOf(ctx.deployment, ctx.connection));
  const siteId = settings.platform.siteId;
  if (siteId === undefined) throw new ConfigError('keys qualify: SVC_SITE_ID is not set; it is the prefix of every qualified key (6:Donation_123)');
  const apply = Boolean(opts.apply) && !ctx.globals.dryRun;
  const before = sharingRefusal(ctx.deployment.connections, ctx.connection, undefined);
  if (before !== undefined) throw new RefusedError(before);
  const session = new RunSession(ctx, 'listing what was done');
  let lock: RunLock | undefined;
  const startedAt = new Date();
  try {
    if (apply) lock = await lockRun(ctx, undefined, opts.wait, session);
    const deps = await createKeyDeps(settings, session.signal, !apply);
    claimOrg(ctx.deployment.connections, ctx.connection, deps.org, apply, { siteId: ctx.connection.raw.SVC_SITE_ID });
    const after = sharingRefusal(ctx.deployment.connections, ctx.connection, deps.org.orgId);
    if (after !== undefined) throw new RefusedError(after);
    // With the projection on, the gift side's keys move too; the run log's error keys always (each where the org has it).
    const projection = settings.salesforce.projection;
    const extra = [...(projection === undefined ? [] : giftKeySources(projection)), deps.logKeys];
    const qualifier = new KeyQualifier(deps.sink, { siteId, apply, stop: session.signal, extra });
    const result = await qualifier.run();
    const stopped = result.refused !== undefined && apply ? new RefusedError(result.refused) : undefined;
    const status: ExitCode = stopped || (result.refused && !apply) ? EXIT.USAGE : result.failed > 0 ? EXIT.PARTIAL : EXIT.OK;
    const text = renderKeys(result, { verbose: ctx.globals.verbose });
    const notes: string[] = [];
    if (apply && deps.log !== undefined) {
      const { total } = deps.sink.calls();
      const logged = await logRun(deps.log, {
        command: 'keys qualify',
        startedAt,
        status,
        stopped,
        report: qualifier.report,
        platformRequests: 0,
        salesforceCalls: total,
        summary: text,
        redact: ctx.out.redact,
      });
      const note = logNote(logged);
      if (note !== undefined) notes.push(note);
    }
    if (result.bare > 0 && !result.refused && !apply) notes.push(`next: svc-sync keys qualify${ctx.connection.name === undefined ? '' : ` --connection ${ctx.connection.name}`} --apply`);
    // SVC_SITE_KEYS is what makes the connection write qualified keys from now on.
    if (apply && result.failed === 0 && !result.refused && settings.salesforce.siteKeys === undefined)
      notes.push(`now run ${ctx.connection.name ?? 'the connection'} with SVC_SITE_KEYS=true: its syncs write and match ${siteId}:<key>`);
    return {
      status,
      result,
      warnings: [],
      text,
      notes,
      ...(stopped ? { stopped } : {}),
      ...(status !== EXIT.OK && !stopped ? { closing: `exit ${status}: ${result.refused ?? `${result.failed} record(s) failed; run it again to retry them`}` } : {}),
    };
  } finally {
    lock?.release();
    session.dispose();
  }
}
