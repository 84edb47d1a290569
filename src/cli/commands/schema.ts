import type { Command } from 'commander';
import type { SetExit } from '../runner.js';
import { helpAfter } from '../helpText.js';
import { optionRules } from './optionRules.js';

/** Where a schema error points. */
export const HELP = ['svc-sync schema --help'];

/** As commander hands them over. */
export interface SchemaOptions {
  project?: string;
  out?: string;
  projection?: string;
}

export function schemaCommand(program: Command, setExit: SetExit): void {
  const cmd = program
    .command('schema')
    .description('write the eight objects, their fields and the Svc_Sync_Integration permission set as Salesforce metadata, ready for `sf project deploy start`')
    .option(
      '--project <dir>',
      'write a complete SFDX project (sfdx-project.json with sourceApiVersion = SF_API_VERSION, source under force-app/); a new or empty folder, or one written by this command before',
    )
    .option('--out <dir>', 'write bare SFDX source (objects/, permissionsets/) into a package directory of an existing project, e.g. force-app/main/default')
    .option('--projection <model>', 'also the key fields the gift projection needs on the Nonprofit Cloud (npc) or NPSP (npsp) objects, granted in the permission set')
    .addHelpText(
      'after',
      helpAfter({
        examples: [
          'svc-sync schema --project svc-org && cd svc-org && sf project deploy start \\',
          '  && sf org assign permset --name Svc_Sync_Integration',
          'svc-sync schema --out force-app/main/default   # into your own project',
          'svc-sync schema --project svc-org --projection npc   # + gift keys',
        ],
      }),
    );
  // The work in its own chunk: --help and option errors never load it.
  optionRules(cmd, [{ kind: 'excludes', flag: '--project', other: '--out', actions: HELP }]).action(async (opts: SchemaOptions, c: Command) =>
    (await import('./schemaRun.js')).schemaAction(opts, c, setExit),
  );
}
