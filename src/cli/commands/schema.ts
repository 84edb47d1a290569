import path from 'node:path';
import type { Command } from 'commander';
import { writeSchema } from '../../sync/compose.js';
import { EXIT } from '../../model/errors.js';
import { runCommand, type SetExit } from '../runner.js';

export function schemaCommand(program: Command, setExit: SetExit): void {
  program
    .command('schema')
    .description('write the eight objects and their fields as Salesforce metadata (SFDX source format), ready for `sf project deploy start`')
    .requiredOption('--out <dir>', 'folder to write objects/<Object>/... into (e.g. force-app/main/default)')
    .addHelpText('after', '\nExample:\n  svc-sync schema --out force-app/main/default && sf project deploy start --source-dir force-app')
    .action((opts: { out: string }, c: Command) =>
      runCommand(
        c,
        setExit,
        async () => {
          const files = await writeSchema(opts.out);
          const objects = new Set(files.filter((f) => f.endsWith('.object-meta.xml')).map((f) => path.basename(f, '.object-meta.xml')));
          return {
            status: EXIT.OK,
            result: { command: 'schema', outDir: opts.out, objects: [...objects], files },
            warnings: [],
            text: `wrote ${files.length} files for ${objects.size} objects under ${opts.out}`,
            verbose: files,
          };
        },
        // The metadata needs no settings: a half-configured checkout can still write it.
        { readSettings: false },
      ),
    );
}
