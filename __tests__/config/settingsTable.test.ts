/** README's settings table and the settings table in src/config/settingsTable.ts say the same. */
import { expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../fixtures/cli.js';
import { SETTINGS, type SettingRow } from '../../src/config/settingsTable.js';
import { buildProgram } from '../../src/cli/program.js';

const rows: readonly SettingRow[] = SETTINGS;

/** README rows `| \`A\`, \`B\` | \`--flag\` ... | meaning |` under the `| setting | flag | meaning |` header. */
function readmeRows(): Array<{ names: string[]; flags: string[] }> {
  const readme = fs.readFileSync(path.join(packageRoot(), 'README.md'), 'utf8');
  const start = readme.indexOf('| setting | flag | meaning |');
  expect(start).toBeGreaterThan(0);
  const lines = readme.slice(start).split('\n').slice(2);
  const out: Array<{ names: string[]; flags: string[] }> = [];
  for (const line of lines) {
    if (!line.startsWith('|')) break;
    const [, names = '', flags = ''] = line.split('|');
    out.push({ names: [...names.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]!), flags: [...flags.matchAll(/`(--[a-z-]+)`/g)].map((m) => m[1]!) });
  }
  return out;
}

it('every setting is in README once or more, README names no other, and each row gives the flags of its settings', () => {
  const table = readmeRows();
  const inReadme = new Set(table.flatMap((r) => r.names));
  expect([...inReadme].sort()).toEqual(rows.map((r) => r.name).sort());
  for (const row of table) {
    const flags = row.names.flatMap((n) => {
      const r = rows.find((x) => x.name === n)!;
      return [r.flag, r.commandFlag].filter((f): f is string => f !== undefined).map((f) => f.split(' ')[0]!);
    });
    expect({ names: row.names, flags: [...new Set(row.flags)].sort() }).toEqual({ names: row.names, flags: [...new Set(flags)].sort() });
  }
});

it('secrets have no flag (a command line shows in ps), and every global flag is declared with its variable and default', () => {
  for (const r of rows) if (r.secret) expect({ name: r.name, flag: r.flag ?? r.commandFlag }).toEqual({ name: r.name, flag: undefined });
  const program = buildProgram(() => undefined);
  for (const r of rows.filter((x) => x.flag !== undefined)) {
    const option = program.options.find((o) => o.long === r.flag!.split(' ')[0]);
    expect(option?.description).toBe(`${r.help} (env ${r.name}${r.default === undefined ? '' : `, default: ${r.default}`})`);
  }
});
