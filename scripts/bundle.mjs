// The CLI as one file: dist/cli.js, bundled from what tsc emitted into dist/src. Loading ~140
// small modules one by one costs more than Node's own start, so the shipped entry is a single
// module; packages stay external (loaded from node_modules, the heavy ones only when a command
// needs them) and the native addon is never bundled.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const entry = path.join(root, 'dist', 'src', 'cli', 'main.js');
if (!existsSync(entry)) {
  process.stderr.write(`bundle: ${entry} is missing: run tsc first (npm run build)\n`);
  process.exit(2);
}
await build({
  entryPoints: [entry],
  outfile: path.join(root, 'dist', 'cli.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
