/**
 * The command surface (commands, arguments, options, defaults) is frozen in command-snapshot.json.
 * A deliberate change: `npm run snapshot:update`, then review and commit the file with the change.
 */
import { expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../fixtures/cli.js';
import { buildProgram } from '../../src/cli/program.js';
import { commandSurface } from '../../src/cli/surface.js';
import { CRON_RECIPE } from '../../src/cli/globals.js';

/** Every markdown file under a folder (docs/ and its pages). */
const markdownUnder = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.md'))
        .map((f) => path.join(dir, f))
    : [];

const FILE = path.join(packageRoot(), 'command-snapshot.json');

it('matches command-snapshot.json (npm run snapshot:update after a deliberate change)', () => {
  const surface = commandSurface(buildProgram(() => undefined));
  const text = `${JSON.stringify(surface, null, 2)}\n`;
  if (process.env.SVC_SYNC_UPDATE_SNAPSHOT === '1') fs.writeFileSync(FILE, text);
  const frozen = fs.existsSync(FILE) ? fs.readFileSync(FILE, 'utf8') : '(no command-snapshot.json: run npm run snapshot:update)';
  expect(text).toBe(frozen);
});

it('every command has an example, and every option of a value states its default or its variable where it has one', () => {
  const program = buildProgram(() => undefined);
  const all = [program, ...program.commands, ...program.commands.flatMap((c) => c.commands)];
  for (const cmd of all) {
    let help = '';
    cmd.configureOutput({ writeOut: (s) => (help += s), writeErr: () => undefined });
    cmd.outputHelp();
    expect({ command: cmd.name(), example: /\nExamples?:\n {2}\S/.test(help) }).toEqual({ command: cmd.name(), example: true });
    // Numeric defaults read as numbers, never quoted.
    expect(help).not.toMatch(/default: "\d+"/);
    // Booleans carry no "(default: false)"; global options are listed once, in svc-sync --help,
    // and each command's help names them in one short paragraph instead of repeating them.
    expect(help).not.toContain('(default: false)');
    if (cmd !== program) {
      const named = /\nGlobal options \(see svc-sync --help\): --json, --json-lines, --dry-run/.test(help);
      expect({ command: cmd.name(), named, listed: help.includes('Global Options:') }).toEqual({ command: cmd.name(), named: true, listed: false });
    }
    // Every help fits 80 columns (stdout is not a terminal here): prose is wrapped, examples are short enough to copy whole.
    const long = help.split('\n').filter((l) => l.length > 80);
    expect({ command: cmd.name(), long }).toEqual({ command: cmd.name(), long: [] });
  }
  let syncHelp = '';
  const sync = program.commands.find((c) => c.name() === 'sync')!;
  sync.configureOutput({ writeOut: (s) => (syncHelp += s) });
  sync.outputHelp();
  expect(syncHelp).toMatch(/--batch-size <n>[\s\S]*\(default: 5000\)/);
  // Global setting flags are described in svc-sync --help and named in the command's help.
  expect(syncHelp).toMatch(/Global options \(see svc-sync --help\):[\s\S]*--bulk-threshold/);
  let topHelp = '';
  program.configureOutput({ writeOut: (s) => (topHelp += s) });
  program.outputHelp();
  expect(topHelp).toMatch(/--bulk-threshold <n>[\s\S]*SF_BULK_THRESHOLD/);
  // One cron recipe: the JSON Lines log gets stdout only, stderr goes to cron's mail.
  expect(syncHelp).toContain(CRON_RECIPE);
  expect(syncHelp).not.toContain('2>&1');
  // The documentation shows the same line (README, or the page of docs/ that took the recipe).
  const docs = [path.join(packageRoot(), 'README.md'), ...markdownUnder(path.join(packageRoot(), 'docs'))].map((f) => fs.readFileSync(f, 'utf8'));
  expect(docs.some((text) => text.includes(CRON_RECIPE))).toBe(true);
});
