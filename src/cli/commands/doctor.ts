import type { Command } from 'commander';
import { platformSettings, requireSettings, salesforceSettings } from '../../config/load.js';
import { EXIT } from '../../model/errors.js';
import { checkSetup, profileFileFor } from '../../sync/compose.js';
import { renderDoctorFindings } from '../render/doctorText.js';
import { profileLines } from '../render/platformProfile.js';
import { outputColumns, wrap } from '../render/text.js';
import { runCommand, type SetExit } from '../runner.js';
import { helpAfter } from '../helpText.js';

/**
 * Checks the platform key (one request), probes its lists' behaviour (kept for the runs), and the org: every object and field of the
 * schema exists with a compatible type and length, SvcId__c is an external id, and the connected
 * user may create and update every mapped field.
 */
export function doctorCommand(program: Command, setExit: SetExit): void {
  program
    .command('doctor')
    .description(
      'check the platform API key, what its lists do (filters, page size, complete or partial: a few requests per collection), and that the org has every object and field, with compatible types, writable by the connected user',
    )
    .addHelpText('after', helpAfter({ examples: ['svc-sync doctor', 'svc-sync doctor --json --instance-url https://example.my.salesforce.com'] }))
    .action((_opts: unknown, c: Command) =>
      runCommand(c, setExit, async (ctx) => {
        requireSettings(ctx.raw, { platform: true, salesforce: true });
        const { platformError, findings, actions, requests, profile } = await checkSetup(platformSettings(ctx.raw), salesforceSettings(ctx.raw), { profileFile: profileFileFor(undefined) });
        const platformLine = platformError === undefined ? 'platform API key: ok' : `platform API: FAILED (${platformError})`;
        const status = platformError === undefined && findings.length === 0 ? EXIT.OK : EXIT.PARTIAL;
        const columns = outputColumns();
        // The org's problems and their fix first; then what the platform's lists do.
        const text = [wrap(platformLine, columns, '  '), ...renderDoctorFindings(findings, actions, columns), ...(profile ? profileLines(profile, columns) : [])].join('\n');
        return { status, result: { command: 'doctor', ok: status === EXIT.OK, platform: platformError ?? 'ok', ...(profile ? { profile } : {}), findings, actions, requests }, warnings: [], text };
      }),
    );
}
