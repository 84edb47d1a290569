/** `schema`'s work, loaded when the command runs (schema.ts declares it). */
import type { Command } from 'commander';
import { apiVersionSetting } from '../../config/load.js';
import { ConfigError, EXIT } from '../../model/errors.js';
import { writeSchemaProject, writeSchemaSource, type ProjectionModel, type WrittenSource } from '../../sync/compose.js';
import { outputColumns, wrap } from '../render/text.js';
import { runCommand, type SetExit } from '../runner.js';
import { HELP, type SchemaOptions } from './schema.js';

export function schemaAction(opts: SchemaOptions, c: Command, setExit: SetExit): Promise<void> {
  const { project, out } = opts;
  if (project === undefined && out === undefined) throw new ConfigError('give --project DIR (a complete SFDX project) or --out DIR (bare source for a project you have)', HELP);
  const projection = projectionModel(opts.projection);
  return runCommand(
    c,
    setExit,
    async (ctx) => {
      // The project's sourceApiVersion follows SF_API_VERSION (flag, environment or config file).
      const written: WrittenSource = project !== undefined ? await writeSchemaProject(project, apiVersionSetting(ctx.raw), projection) : await writeSchemaSource(out as string, projection);
      const { dir, sourceDir, files, objects, permissionSet, projectFile, apiVersion, next } = written;
      const where = project !== undefined ? { projectDir: dir, projectFile, apiVersion } : { outDir: dir };
      const place = projectFile ? `an SFDX project in ${dir} (sourceApiVersion ${apiVersion})` : dir;
      return {
        status: EXIT.OK,
        result: { command: 'schema', ...where, sourceDir, objects, permissionSet, files, next },
        warnings: [],
        text: schemaText(`wrote ${files.length} files for ${objects.length} objects and the ${permissionSet} permission set to ${place}`, next),
        verbose: files,
      };
    },
    // Bare source needs no settings: a half-configured checkout can still write it.
    { readSettings: project !== undefined, connections: 'deployment' },
  );
}

/**
 * What was written, then the commands to run next, one a line as they are copied: every line
 * fits the terminal (80 columns in a pipe), but for a long folder name, which is never cut.
 */
function schemaText(wrote: string, next: readonly string[]): string {
  const columns = outputColumns();
  return [wrap(wrote, columns, '  '), wrap('next, in order (the permission set goes to the user svc-sync connects as):', columns, '  '), ...next.map((c) => `  ${c}`)].join('\n');
}

/** --projection: npc (Nonprofit Cloud) or npsp (the Nonprofit Success Pack). */
function projectionModel(v: string | undefined): ProjectionModel | undefined {
  if (v === undefined) return undefined;
  const m = v.trim().toLowerCase();
  if (m === 'npc' || m === 'npsp') return m;
  throw new ConfigError(`--projection ${JSON.stringify(v.slice(0, 40))}: must be npc or npsp`, HELP);
}
