import type { Command } from 'commander';
import Table from 'cli-table3';
import { checkOrg, type DoctorFinding } from '../../crm/doctor.js';
import { SalesforceSink } from '../../crm/sink.js';
import { checkPlatform } from '../../platform/client.js';
import { platformSettings, salesforceSettings } from '../../config/load.js';
import type { GlobalOptions } from '../globals.js';
import { commandContext } from '../runSync.js';

/**
 * Checks the platform key (exactly one request) and the org: every object and field of the
 * schema exists with a compatible type and length, SvcId__c is an external id.
 */
export function doctorCommand(program: Command, setExit: (code: number) => void): void {
  program
    .command('doctor')
    .description('check that SVC_API_URL is the platform API and the key works (one request) and that the org has every object and field, with compatible types')
    .action(async (_opts: unknown, c: Command) => {
      const ctx = commandContext(c.optsWithGlobals<GlobalOptions>());
      const platform = platformSettings(ctx.raw);
      const salesforce = salesforceSettings(ctx.raw);
      const key = await checkPlatform(platform);
      const platformLine = key.ok ? 'platform API key: ok' : `platform API: FAILED (${key.message})`;
      const sink = await SalesforceSink.connect(salesforce);
      const findings: DoctorFinding[] = await checkOrg(sink);
      const status = key.ok && findings.length === 0 ? 0 : 1;
      if (ctx.globals.json) {
        const result = { command: 'doctor', ok: status === 0, platform: key.ok ? 'ok' : key.message, findings, requests: { platform: 1, salesforce: sink.calls().total } };
        ctx.out.json(status, result, []);
      } else if (findings.length === 0) {
        ctx.out.result(`${platformLine}\nSalesforce org: every object and field is in place`);
      } else {
        const t = new Table({ head: ['object', 'field', 'problem', 'expected', 'actual'], style: { head: [], border: [] } });
        for (const f of findings) t.push([f.object, f.field ?? '', f.problem, f.expected, f.actual]);
        ctx.out.result(`${platformLine}\n${t.toString()}\n${findings.length} problem(s) in the org; \`svc-sync schema --out DIR\` writes the metadata to deploy`);
      }
      setExit(status);
    });
}
