/** docs/configuration.md's settings reference is the settings table of src/config/settingsTable.ts, regenerated. */
import { expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../fixtures/cli.js';
import { SETTINGS, type SettingRow } from '../../src/config/settingsTable.js';
import { settingsReference, withReference } from '../../src/config/settingsReference.js';
import { buildProgram } from '../../src/cli/program.js';

const rows: readonly SettingRow[] = SETTINGS;
const PAGE = path.join(packageRoot(), 'docs', 'configuration.md');

it('the committed settings reference is what regenerating it writes (npm run docs:settings)', () => {
  const page = fs.readFileSync(PAGE, 'utf8');
  expect(withReference(page)).toBe(page);
});

it('the reference has one row per setting, in the table order, with its flag and default', () => {
  const lines = settingsReference()
    .split('\n')
    .filter((l) => l.startsWith('| `'));
  expect(lines.map((l) => /^\| `([A-Z_]+)`/.exec(l)?.[1])).toEqual(rows.map((r) => r.name));
  for (const [i, r] of rows.entries()) {
    const flag = (r.flag ?? r.commandFlag)?.split(' ')[0];
    const [, , flagCell = '', defaultCell = ''] = lines[i]!.split('|').map((c) => c.trim());
    expect({ name: r.name, flag: flagCell, default: defaultCell }).toEqual({
      name: r.name,
      flag: flag === undefined ? '' : `\`${flag}\`${r.commandFlag === undefined ? '' : ' (command)'}`,
      default: r.default === undefined ? '' : `\`${r.default}\``,
    });
  }
});

it('a page without the markers is not rewritten', () => {
  expect(withReference('# Configuration\n')).toBeUndefined();
});

it('secrets have no flag (a command line shows in ps), and every global flag is declared with its variable and default', () => {
  for (const r of rows) if (r.secret) expect({ name: r.name, flag: r.flag ?? r.commandFlag }).toEqual({ name: r.name, flag: undefined });
  const program = buildProgram(() => undefined);
  for (const r of rows.filter((x) => x.flag !== undefined)) {
    const option = program.options.find((o) => o.long === r.flag!.split(' ')[0]);
    expect(option?.description).toBe(`${r.help} (env ${r.name}${r.default === undefined ? '' : `, default: ${r.default}`})`);
  }
});
