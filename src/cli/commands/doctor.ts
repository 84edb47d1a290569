import type { Command } from 'commander';
import Table from 'cli-table3';
import { ACCESS_PROBLEMS, checkOrg, type DoctorFinding } from '../../crm/doctor.js';
import { ASSIGN_PERMISSION_SET } from '../../crm/permissionSet.js';
import { SalesforceSink } from '../../crm/sink.js';
import { checkApiKey } from '../../platform/client.js';
import { platformSettings, salesforceSettings } from '../../config/load.js';
import type { GlobalOptions } from '../globals.js';
import { commandContext } from '../runSync.js';

/**
 * Checks the platform key (exactly one request) and the org: every object and field of the
 * schema exists with a compatible type and length, SvcId__c is an external id, and the connected
 * user may create and update every mapped field.
 */

const DEPLOY = 'svc-sync schema --project svc-org && cd svc-org && sf project deploy start';

/** The commands that fix what was found, in the order to run them. */
export function doctorActions(findings: DoctorFinding[]): string[] {
  const actions: string[] = [];
  if (findings.some((f) => f.problem !== 'not_editable')) actions.push(`deploy the metadata: ${DEPLOY}`);
  if (findings.some((f) => ACCESS_PROBLEMS.includes(f.problem))) actions.push(`give the connected user access to the fields: ${ASSIGN_PERMISSION_SET}`);
  return actions;
}
export function doctorCommand(program: Command, setExit: (code: number) => void): void {
  program
    .command('doctor')
    .description('check the platform API key (one request) and that the org has every object and field, with compatible types, writable by the connected user')
    .action(async (_opts: unknown, c: Command) => {
      const ctx = commandContext(c.optsWithGlobals<GlobalOptions>());
      const platform = platformSettings(ctx.raw);
      const salesforce = salesforceSettings(ctx.raw);
      const key = await checkApiKey(platform);
      const platformLine = key.ok ? 'platform API key: ok' : `platform API key: FAILED (${key.error.message})`;
      const sink = await SalesforceSink.connect(salesforce);
      const findings: DoctorFinding[] = await checkOrg(sink);
      const status = key.ok && findings.length === 0 ? 0 : 1;
      const actions = doctorActions(findings);
      if (ctx.globals.json) {
        const result = { command: 'doctor', ok: status === 0, platform: key.ok ? 'ok' : key.error.message, findings, actions, requests: { platform: 1, salesforce: sink.calls().total } };
        ctx.out.json(status, result, []);
      } else if (findings.length === 0) {
        ctx.out.result(`${platformLine}\nSalesforce org: every object and field is in place`);
      } else {
        const t = new Table({ head: ['object', 'field', 'problem', 'expected', 'actual'], style: { head: [], border: [] } });
        for (const f of findings) t.push([f.object, f.field ?? '', f.problem, f.expected, f.actual]);
        const fix = actions.map((a) => `  ${a}`).join('\n');
        ctx.out.result(`${platformLine}\n${t.toString()}\n${findings.length} problem(s) in the org; to fix:\n${fix}`);
      }
      setExit(status);
    });
}
