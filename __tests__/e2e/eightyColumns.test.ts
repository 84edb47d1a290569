/**
 * Issue 29: what a person reads fits an 80-column terminal. Issue 40: a log keeps a record on one
 * line. The errors the CLI prints (the catalogue below), serve's text log, the demo and --help,
 * run as cron runs them: no terminal, so stderr is a log, each record one stamped line, never
 * wrapped; on a terminal the same record wraps to its width.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { BIN, cliArgs, type CliResult, packageRoot, runCli } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { removeDir, tempCwd, unstamp, waitFor } from './helpers.js';
import { WAIT_MS } from '../support/patience.js';

/** COLUMNS empty: the width a cron job or a log gets. */
const AS_A_PERSON = { COLUMNS: '' };
/** Lines over 80 columns, but for a URL or a path alone on its line (it is never cut, so it can be copied). */
const wide = (text: string): string[] => text.split('\n').filter((l) => [...l].length > 80 && !/^(\d{4}-\d\d-\d\dT\S+Z )?\s*[("']?([a-z]+:\/\/|\/)\S+$/.test(l));

let stack: Stack;
let cwd: string;
beforeAll(async () => {
  stack = await startStack({ site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 1, companiesPerProject: 0, actionsPerParent: 1, donations: 5, newsletterSubscriptions: 0 } });
  cwd = tempCwd('eighty');
});
afterAll(async () => {
  await stack.close();
  removeDir(cwd);
});

const run = (args: string[], env: Record<string, string> = stack.env): Promise<CliResult> => runCli(args, { cwd, env: { ...env, ...AS_A_PERSON } });

describe('the error catalogue: in a log, one stamped line a record, never wrapped', () => {
  const cases: Array<[string, () => Promise<CliResult>, RegExp]> = [
    ['every setting missing', () => run(['sync', '--all'], { PATH: process.env.PATH ?? '' }), /settings are missing/],
    ['a rejected API key', () => run(['sync', '--all'], { ...stack.env, SVC_API_KEY: 'not-the-key-at-all' }), /check SVC_API_KEY/],
    ['a Salesforce session refused', () => run(['sync', '--all'], { ...stack.env, SF_ACCESS_TOKEN: 'not-a-session-token' }), /session/],
    ['an SVC_API_URL that is not the API', () => run(['sync', '--all'], { ...stack.env, SVC_API_URL: `${stack.env.SVC_API_URL!}/api-typo` }), /is not the platform's API/],
    ['another site', () => run(['sync', '--all'], { ...stack.env, SVC_SITE_ID: '7' }), /SVC_SITE_ID is 7/],
    ['an unknown option', () => run(['sync', '--all', '--no-such-option']), /unknown option/],
    ['an unknown object type', () => run(['object', 'widget', '1']), /object type "widget": unknown/],
    ['a bad log format', () => run(['object', 'donation', '1'], { ...stack.env, SVC_LOG_FORMAT: 'xml' }), /SVC_LOG_FORMAT "xml": must be text or json/],
    ['a missing replay file', () => run(['replay', '--file', path.join(cwd, 'a-folder-that-is-not-there', 'with-a-long-file-name-ids.csv')]), /with-a-long-file-name-ids\.csv/],
    [
      'a damaged state file',
      async () => {
        const state = path.join(cwd, 'damaged-state.json');
        fs.writeFileSync(state, '{"watermarks": {"donations": "yesterday"}}');
        return run(['sync', '--state', state]);
      },
      /state file/,
    ],
    [
      'a port in use',
      async () => {
        const server = net.createServer();
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const port = (server.address() as net.AddressInfo).port;
        try {
          return await run(['serve', '--host', '127.0.0.1', '--port', String(port)]);
        } finally {
          server.close();
        }
      },
      /already in use/,
    ],
  ];
  it.each(cases)('%s', async (_name, make, says) => {
    const res = await make();
    expect(res.code).not.toBe(0);
    expect(wide(res.stdout)).toEqual([]);
    // A log: every line is a whole record carrying its time (commander's usage errors too); the
    // message is found whole by grep, its `next:` command with it.
    const lines = res.stderr.split('\n').filter((l) => l !== '');
    for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \S/);
    expect(lines.filter((l) => says.test(l))).toHaveLength(1);
  });
});

it("serve's text log: the start, a batch and the stop, every line a whole stamped record", async () => {
  const dir = tempCwd('eighty-serve');
  const child = spawn(process.execPath, cliArgs(['serve', '--host', '127.0.0.1', '--port', '0', '--settle', '0']), {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', ...stack.env, SVC_WEBHOOK_SECRET: 'hook-secret-8c1d4e', ...AS_A_PERSON },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    // The URL stands on a line of its own when the line wraps, so it can be copied.
    const base = await waitFor(() => /listening on\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(unstamp(stderr))?.[1], WAIT_MS, 'serve to listen');
    const donation = stack.platform.site.donation[0]!;
    const body = { object_type: 'Donation', object_id: donation.id, event_type: 'donations.update', application: 'Fundraising', site_id: 6 };
    const answer = await fetch(`${base}/webhooks/hook-secret-8c1d4e`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect(answer.status).toBe(200);
    await waitFor(() => (/webhook batch: 1 event\b/.test(unstamp(stderr)) ? true : undefined), WAIT_MS, 'the batch line');
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(unstamp(stderr)).toMatch(/svc-sync serve: stopped/);
    // Counts in the right number: "1 event", never "1 events" nor "1 platform requests".
    expect(unstamp(stderr)).not.toMatch(/\b1 (events|records|refs|platform requests)\b/);
    for (const line of stderr.split('\n').filter((l) => l !== '')) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    removeDir(dir);
  }
});

it('on a terminal a record wraps to its width: continuation lines indented, the next: command whole', async () => {
  // `script` gives the CLI a terminal (stdout and stderr both), as a person at a console has.
  const cmd = `${process.execPath} ${BIN} sync --all; ${process.execPath} ${BIN} --json sync --bogus-option-with-a-long-name > /dev/null`;
  const child = spawn('script', ['-qec', cmd, '/dev/null'], { cwd, env: { PATH: process.env.PATH ?? '', COLUMNS: '60' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((resolve) => child.on('exit', resolve));
  const lines = out
    .replace(/\r/g, '')
    .split('\n')
    .filter((l) => l !== '');
  expect(lines[0]).toMatch(/^svc-sync: 3 settings are missing/);
  for (const l of lines) expect([...l].length).toBeLessThanOrEqual(60);
  expect(lines.filter((l) => l.startsWith('svc-sync: '))).toHaveLength(2);
  for (const l of lines.filter((x) => !x.startsWith('svc-sync: '))) expect(l).toMatch(/^ {2}\S/);
  expect(lines).toContain('  next: svc-sync sync --help');
}, 30_000);

it('--help leads with usage and the five commands a newcomer needs, every line within 80 columns', async () => {
  const res = await run(['--help']);
  expect(res.code).toBe(0);
  const lines = res.stdout.split('\n');
  expect(lines[0]).toMatch(/^Usage: svc-sync /);
  const start = lines.indexOf('Start here:');
  expect(start).toBeGreaterThan(0);
  expect(start + 5).toBeLessThan(24);
  expect(lines.slice(start + 1, start + 6).map((l) => /^ {2}(svc-sync [^ ]+(?: [^ ]+)*?) {2,}/.exec(l)?.[1])).toEqual([
    'svc-sync schema --project svc-org',
    'svc-sync doctor',
    'svc-sync --dry-run sync --all',
    'svc-sync sync --all',
    'svc-sync serve',
  ]);
  // Then every command, then the options.
  expect(res.stdout.indexOf('Commands:')).toBeGreaterThan(res.stdout.indexOf('Start here:'));
  expect(res.stdout.indexOf('Options:')).toBeGreaterThan(res.stdout.indexOf('Commands:'));
  expect(wide(res.stdout)).toEqual([]);
});

it('the demo: every line within 80 columns, and its last screen says what happened and what to try next', async () => {
  const demo = path.join(packageRoot(), 'dist', 'fixtures', 'demo.js');
  const child = spawn(process.execPath, [demo], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  expect(code).toBe(0);
  expect(wide(out)).toEqual([]);
  // The demo runs as README says to: its site named, never "site ? (SVC_SITE_ID not set)".
  expect(out).toMatch(/^(\S+Z )?site 6 at 127\.0\.0\.1:\d+$/m);
  expect(out).not.toMatch(/SVC_SITE_ID not set/);
  const lastScreen = out.trimEnd().split('\n').slice(-24).join('\n');
  expect(lastScreen).toMatch(/== What happened/);
  expect(lastScreen).toMatch(/1\. a dry run showed what a full sync would write \(exit 0\)/);
  expect(lastScreen).toMatch(/npm run stack/);
  expect(lastScreen).toMatch(/npm run stack -- --npc .*\n.*SVC_PROJECTION=npc svc-sync --dry-run sync --all/);
  expect(lastScreen).toMatch(/docs\/administration\.md/);
}, 90_000);

describe('output a person reads after a command that succeeded', () => {
  it('schema --project: within 80 columns, each next command on a line of its own, whole', async () => {
    const res = await run(['schema', '--project', 'svc-org-for-an-eighty-column-terminal']);
    expect(res.code).toBe(0);
    expect(wide(res.stdout)).toEqual([]);
    const lines = res.stdout.split('\n');
    const next = lines.findIndex((l) => l.startsWith('next, in order'));
    expect(lines.slice(next + 1, next + 4)).toEqual(['  cd svc-org-for-an-eighty-column-terminal', '  sf project deploy start', '  sf org assign permset --name Svc_Sync_Integration']);
    const out = await run(['schema', '--out', path.join('svc-org-for-an-eighty-column-terminal', 'force-app', 'main', 'default')]);
    expect(out.code).toBe(0);
    expect(wide(out.stdout)).toEqual([]);
  });

  it('a dry run after changes on the platform, a record removed among them: within 80 columns', async () => {
    const dir = tempCwd('eighty-dry');
    try {
      expect((await runCli(['sync', '--all'], { cwd: dir, env: stack.env })).code).toBe(0);
      const [first, , , , last] = stack.platform.site.donation;
      stack.platform.update('donation', first!.id, { message: 'A message changed on the platform, long enough to be cut in the diff' });
      stack.platform.remove('donation', last!.id);
      const res = await runCli(['--dry-run', 'sync', '--all'], { cwd: dir, env: { ...stack.env, ...AS_A_PERSON } });
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/^Orphan candidates \(1\): /m);
      expect(res.stdout).toMatch(/^Updates \(1\):/m);
      expect(wide(res.stdout)).toEqual([]);
    } finally {
      removeDir(dir);
    }
  });
});
