import type { Command } from 'commander';
import type { SetExit } from '../runner.js';
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
    // The work in its own chunk: --help and option errors never load it.
    .action(async (_opts: unknown, c: Command) => (await import('./doctorRun.js')).doctorAction(c, setExit));
}
