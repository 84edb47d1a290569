#!/usr/bin/env node
// Writes the settings reference into docs/configuration.md from the built settings table
// (npm run docs:settings builds first). A test fails when the committed page differs.
import fs from 'node:fs';
import path from 'node:path';
import { withReference } from '../dist/src/config/settingsReference.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const file = path.join(root, 'docs', 'configuration.md');
const page = withReference(fs.readFileSync(file, 'utf8'));
if (page === undefined) {
  console.error(`${file}: the markers of the generated settings reference are missing`);
  process.exit(2);
}
fs.writeFileSync(file, page);
console.log(`${path.relative(root, file)}: settings reference regenerated`);
