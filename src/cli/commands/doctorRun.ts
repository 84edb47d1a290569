/** `doctor`'s work, loaded when the command runs (doctor.ts declares it). */
import type { Command } from 'commander';
import { platformSettings, requireSettings, salesforceSettings } from '../../config/load.js';
import { claimOrg } from '../../config/orgRecord.js';
import { EXIT, exitCodeOf, type ExitCode } from '../../model/errors.js';
import { whereLines, whereOf } from '../where.js';
import { checkSetup, profileFileFor } from '../../sync/compose.js';
import { renderDoctorFindings } from '../render/doctorText.js';
import { profileLines } from '../render/platformProfile.js';
import { outputColumns, wrap } from '../render/text.js';
import { runCommand, type SetExit } from '../runner.js';

export function doctorAction(c: Command, setExit: SetExit): Promise<void> {
  return runCommand(
    c,
    setExit,
    async (ctx) => {
      requireSettings(ctx.raw, { platform: true, salesforce: true });
      const { platformError, platformFailure, findings, actions, requests, profile, org } = await checkSetup(platformSettings(ctx.raw), salesforceSettings(ctx.raw), {
        profileFile: profileFileFor(undefined, ctx.connection.stateDir),
      });
      const warnings: string[] = [];
      claimOrg(ctx.deployment.connections, ctx.connection, org, !ctx.globals.dryRun, {
        writes: false,
        siteId: ctx.connection.raw.SVC_SITE_ID,
        warn: (w) => {
          warnings.push(w);
          if (!ctx.globals.json) ctx.out.warn(w);
        },
      });
      const where = whereOf(ctx.raw, ctx.sources, org, ctx.connection.name);
      // With --json the document holds it (result.where): stderr stays for what goes wrong.
      if (!ctx.globals.json) for (const line of whereLines(where, ctx.out.opts.label !== undefined)) ctx.out.info(line);
      const platformLine = platformError === undefined ? 'platform API key: ok' : `platform API: FAILED (${platformError})`;
      // A key or URL sync would refuse with 2 is 2 here too; the org's findings are 1.
      const status = platformFailure !== undefined ? (Math.max(exitCodeOf(platformFailure), EXIT.PARTIAL) as ExitCode) : findings.length === 0 ? EXIT.OK : EXIT.PARTIAL;
      const columns = outputColumns();
      // The org's problems and their fix first; then what the platform's lists do.
      const text = [wrap(platformLine, columns, '  '), ...renderDoctorFindings(findings, actions, columns), ...(profile ? profileLines(profile, columns) : [])].join('\n');
      const closing =
        platformError !== undefined
          ? `exit ${status}: platform API: ${platformError}; next: check SVC_API_URL and SVC_API_KEY`
          : `exit ${status}: ${findings.length} problems in the org; next: ${actions[0] ?? 'svc-sync doctor'}`;
      return {
        status,
        closing,
        result: { command: 'doctor', where, ok: status === EXIT.OK, platform: platformError ?? 'ok', ...(profile ? { profile } : {}), findings, actions, requests },
        warnings,
        text,
      };
    },
    { connections: 'each' },
  );
}
