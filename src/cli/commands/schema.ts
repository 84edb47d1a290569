import type { Command } from 'commander';
import { apiVersionSetting } from '../../config/load.js';
import { ConfigError } from '../../config/errors.js';
import { ASSIGN_PERMISSION_SET } from '../../crm/permissionSet.js';
import { exportProject, exportSource, type WrittenSource } from '../../crm/sfdxProject.js';
import type { GlobalOptions } from '../globals.js';
import { Output } from '../output.js';
import { commandContext } from '../runSync.js';

export function schemaCommand(program: Command, setExit: (code: number) => void): void {
  program
    .command('schema')
    .description('write the eight objects, their fields and the Svc_Sync_Integration permission set as Salesforce metadata, ready for `sf project deploy start`')
    .option('--project <dir>', 'write a complete SFDX project (sfdx-project.json with sourceApiVersion = SF_API_VERSION, source under force-app/); a new or empty folder, or one written by this command before')
    .option('--out <dir>', 'write bare SFDX source (objects/, permissionsets/) into a package directory of an existing project, e.g. force-app/main/default')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  svc-sync schema --project svc-org && cd svc-org && sf project deploy start && sf org assign permset --name Svc_Sync_Integration\n' +
        '  svc-sync schema --out force-app/main/default     # into a project you already have',
    )
    .action(async (opts: { project?: string; out?: string }, c: Command) => {
      const g = c.optsWithGlobals<GlobalOptions>();
      if (opts.project !== undefined && opts.out !== undefined) throw new ConfigError('--project and --out: give one of them, not both');
      if (opts.project === undefined && opts.out === undefined) {
        throw new ConfigError('give --project DIR (a complete SFDX project) or --out DIR (bare source for a project you have)');
      }
      let written: WrittenSource;
      let out: Output;
      if (opts.project !== undefined) {
        // The project's sourceApiVersion follows SF_API_VERSION (flag, environment or config file).
        const ctx = commandContext(g);
        out = ctx.out;
        written = await exportProject(opts.project, apiVersionSetting(ctx.raw));
      } else {
        // Bare source needs no settings at all.
        out = new Output({ json: g.json, quiet: g.quiet, verbose: g.verbose });
        written = await exportSource(opts.out as string);
      }
      const next =
        opts.project !== undefined
          ? `next: cd ${opts.project} && sf project deploy start && ${ASSIGN_PERMISSION_SET}`
          : `next: sf project deploy start, then ${ASSIGN_PERMISSION_SET} for the integration user`;
      if (g.json) {
        const { dir, sourceDir, files, objects, permissionSet, projectFile, apiVersion } = written;
        const where = opts.project !== undefined ? { projectDir: dir, projectFile, apiVersion } : { outDir: dir };
        out.json(0, { command: 'schema', ...where, sourceDir, objects, permissionSet, files, next }, []);
      } else {
        const where = written.projectFile ? `an SFDX project in ${written.dir} (sourceApiVersion ${written.apiVersion})` : written.dir;
        out.result(`wrote ${written.files.length} files for ${written.objects.length} objects and the ${written.permissionSet} permission set to ${where}\n${next}`);
        for (const f of written.files) out.verbose(f);
      }
      setExit(0);
    });
}
