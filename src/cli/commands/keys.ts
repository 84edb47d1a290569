/**
 * `svc-sync keys qualify`: the org one site filled with bare keys moved onto the site's qualified
 * keys (SITES.md, "Migration"). A dry run unless --apply; --apply takes the run lock and logs a run.
 */
import type { Command } from 'commander';
import { helpAfter } from '../helpText.js';
import type { SetExit } from '../runner.js';
import type { WaitValue } from '../runLimits.js';
import { waitOption } from './runOptions.js';

export interface QualifyOptions {
  apply?: boolean;
  wait?: WaitValue;
}

const QUALIFY_HELP = helpAfter({
  prose: [
    'For an org one site filled before with bare keys (Donation_123): every SvcId__c, TargetSvcId__c and QuestionSvcId__c without a site prefix becomes <SVC_SITE_ID>:<key> (6:Donation_123), updated by Salesforce Id in batches; nothing is inserted or deleted, Ids and lookups stay. Keys with a site prefix are left alone: a second --apply writes nothing.',
    'Refused (exit 2, nothing written) when it cannot tell whose the bare keys are: another connection on the same org that writes bare keys or has run there, or keys of another site in the org beside bare ones.',
    'Exit codes: 0 done (or nothing to do); 1 some records failed; 2 usage, configuration or refused.',
  ],
  examples: ['svc-sync keys qualify --connection north', 'svc-sync keys qualify --connection north --apply'],
});

export function keysCommand(program: Command, setExit: SetExit): void {
  const keys = program
    .command('keys')
    .description('site-qualified keys (several sites in one org): move the keys one site wrote onto its site')
    .addHelpText('after', helpAfter({ examples: ['svc-sync keys qualify --connection north'] }));
  keys
    .command('qualify')
    .description("rewrite the org's bare keys to this connection's site (a dry run unless --apply)")
    .option('--apply', 'update the keys (without it: counts per object and a sample of what would change)')
    .addOption(waitOption('with --apply: '))
    .addHelpText('after', QUALIFY_HELP)
    // The work in its own chunk: --help and option errors never load it.
    .action(async (opts: QualifyOptions, c: Command) => (await import('./keysRun.js')).qualifyAction(opts, c, setExit));
}
