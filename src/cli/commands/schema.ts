import path from 'node:path';
import type { Command } from 'commander';
import { exportSchema } from '../../crm/schemaExport.js';
import type { GlobalOptions } from '../globals.js';
import { Output } from '../output.js';

export function schemaCommand(program: Command, setExit: (code: number) => void): void {
  program
    .command('schema')
    .description('write the eight objects and their fields as Salesforce metadata (SFDX source format), ready for `sf project deploy start`')
    .requiredOption('--out <dir>', 'folder to write objects/<Object>/... into (e.g. force-app/main/default)')
    .addHelpText('after', '\nExample:\n  svc-sync schema --out force-app/main/default && sf project deploy start --source-dir force-app')
    .action(async (opts: { out: string }, c: Command) => {
      const g = c.optsWithGlobals<GlobalOptions>();
      const out = new Output({ json: g.json, quiet: g.quiet, verbose: g.verbose });
      const files = await exportSchema(opts.out);
      const objects = new Set(files.filter((f) => f.endsWith('.object-meta.xml')).map((f) => path.basename(f, '.object-meta.xml')));
      if (g.json) out.json(0, { command: 'schema', outDir: opts.out, objects: [...objects], files }, []);
      else {
        out.result(`wrote ${files.length} files for ${objects.size} objects under ${opts.out}`);
        for (const f of files) out.verbose(f);
      }
      setExit(0);
    });
}
