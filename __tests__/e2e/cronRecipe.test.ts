/**
 * Issue 40, done when: the cron recipe of docs/operations.md run as cron runs it (a shell, cron's
 * PATH, secrets from an env file, no terminal, stdout appended to a file) for success, a partial
 * run, a wrong key, the platform down, Salesforce down and an overlap. Each failure is one stderr
 * line with a whole `next:` command, the exit code is the table's, and a run record is in the org
 * whenever Salesforce answered.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { BIN, outputOf, packageRoot, runCli } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { acquireRunLock } from '../../src/sync/run/runLock.js';
import { expectedKeys, removeDir, tempCwd } from './helpers.js';

const RUNS = 'Svc_SyncRun__c';
const STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z svc-sync: /;

/** A loopback port nothing listens on (taken, then closed). */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the cron recipe, run as cron runs it', () => {
  let stack: Stack;
  let dir: string;
  let failing: string[];
  let cronPath: string;
  let script: string;

  beforeAll(async () => {
    stack = await startStack({ site: { seed: 40, segments: 1, projectsPerSegment: 1, donations: 12, newsletterSubscriptions: 2 } });
    dir = tempCwd('cron');
    failing = expectedKeys(stack.platform.site).Svc_Donation__c.slice(0, 2);
    // The crontab's PATH line: the install's bin folder and node's, then cron's own /usr/bin:/bin.
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.symlinkSync(BIN, path.join(bin, 'svc-sync'));
    cronPath = [bin, path.dirname(process.execPath), '/usr/bin', '/bin'].join(':');
    // docs/operations.md's sync.sh, in this folder: the crontab line runs it.
    script = path.join(dir, 'sync.sh');
    const recipe = [`cd ${dir} || exit 1`, 'set -a && . ./svc-sync.env && set +a', 'exec svc-sync sync --json-lines -q >> sync.jsonl'];
    fs.writeFileSync(script, `#!/bin/sh\n${recipe.join('\n')}\n`, { mode: 0o700 });
    // The first run is a person's, by hand (`sync --all`); two donations are refused by a rule.
    stack.salesforce.addValidationRule({ object: 'Svc_Donation__c', keys: failing, message: 'Gift Aid needs a declaration', field: 'Amount__c' });
    const first = await runCli(['sync', '--all'], { env: stack.env, cwd: dir });
    if (first.code !== 1) throw new Error(`the first run: exit ${first.code}\n${first.stderr}`);
  });
  afterAll(async () => {
    await stack.close();
    removeDir(dir);
  });

  /** One tick: the env file written (mode 600) with `env` over the stack's, then the crontab line. */
  async function tick(env: Record<string, string> = {}): Promise<{ code: number; lines: string[]; last: { status: number; result?: { where?: { site?: unknown } } } }> {
    const settings = { ...stack.env, ...env };
    fs.writeFileSync(
      path.join(dir, 'svc-sync.env'),
      Object.entries(settings)
        .map(([k, v]) => `${k}='${v}'\n`)
        .join(''),
      { mode: 0o600 },
    );
    // cron's environment: no terminal, no COLUMNS, HOME, LOGNAME, SHELL and the crontab's PATH.
    const child = spawn('/bin/sh', ['-c', script], { env: { PATH: cronPath, HOME: dir, LOGNAME: 'svc', SHELL: '/bin/sh' }, stdio: ['ignore', 'ignore', 'pipe'] });
    const res = await outputOf(child);
    const jsonl = fs.readFileSync(path.join(dir, 'sync.jsonl'), 'utf8').trimEnd().split('\n');
    return { code: res.code, lines: res.stderr.split('\n').filter((l) => l !== ''), last: JSON.parse(jsonl[jsonl.length - 1] ?? '{}') as { status: number; result?: { where?: { site?: unknown } } } };
  }

  /** The one stderr line of a failed tick: stamped, and ending in a whole next command. */
  function oneFailureLine(lines: string[], exit: number, next: RegExp): string {
    expect(lines).toHaveLength(1);
    const [line] = lines as [string];
    expect(line).toMatch(STAMP);
    expect(line).toContain(`svc-sync: exit ${exit}: `);
    expect(line.split('; next: ').pop()).toMatch(next);
    return line;
  }

  const runs = (): Array<Record<string, unknown>> => stack.salesforce.records(RUNS);

  it('a partial run (the two failures retried, the rest unchanged): exit 1, one line, Partial (not Failed)', async () => {
    const t = await tick();
    expect(t.code).toBe(1);
    expect(t.last.status).toBe(1);
    // The mail names the reason and the records; a validation rule is not fixed by the next sync.
    const line = oneFailureLine(t.lines, 1, /^svc-sync doctor$/);
    expect(line).toContain(`2 records failed: 2 Svc_Donation__c FIELD_CUSTOM_VALIDATION_EXCEPTION: Gift Aid needs a declaration (${failing.join(', ')})`);
    expect(line).toContain('a retry cannot fix it');
    expect(runs().map((r) => r.Outcome__c)).toEqual(['Partial', 'Partial']);
    expect(runs()[1]).toMatchObject({ Failed__c: 2, Inserted__c: 0, Updated__c: 0 });
  });

  it('success: exit 0, nothing on stderr, a Succeeded run record, and no holder file left naming the run', async () => {
    stack.salesforce.removeValidationRules();
    const t = await tick();
    expect({ code: t.code, lines: t.lines, status: t.last.status }).toEqual({ code: 0, lines: [], status: 0 });
    expect(runs().map((r) => r.Outcome__c)).toEqual(['Partial', 'Partial', 'Succeeded']);
    expect(runs()[2]).toMatchObject({ Inserted__c: 2, Failed__c: 0 });
    expect(fs.existsSync(path.join(dir, '.svc-sync', 'run.lock.holder.json'))).toBe(false);
    // SVC_SITE_ID is not set: the log line names the site as the platform's records report it.
    expect(t.last.result?.where?.site).toMatchObject({ id: null, reported: stack.platform.site.donation[0]?.site_id });
  });

  it('by hand, SVC_SITE_ID unset: the run names the site its records carry, and the setting to fix it', async () => {
    const site = stack.platform.site.donation[0]?.site_id;
    const res = await runCli(['sync', '--all'], { env: stack.env, cwd: dir });
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(`site ${site}, as the platform reports it (SVC_SITE_ID not set: set SVC_SITE_ID=${site} so a record of another site stops the run)`);
  });

  it('a config file holding a secret that others can read: one warning line naming it and chmod 600, as ssh does', async () => {
    const config = path.join(dir, 'svc-sync.config.json');
    fs.writeFileSync(config, JSON.stringify({ SVC_API_KEY: stack.env.SVC_API_KEY, SVC_SALESFORCE_LOG: 'on' }), { mode: 0o644 });
    fs.chmodSync(config, 0o644);
    try {
      const open = await tick();
      expect(open.code).toBe(0);
      expect(open.lines).toHaveLength(1);
      expect(open.lines[0]).toMatch(/^\S+ warning: \S+svc-sync\.config\.json holds SVC_API_KEY and others can read it \(mode 0644\): chmod 600 \S+svc-sync\.config\.json$/);
      expect(open.lines[0]).not.toContain(stack.env.SVC_API_KEY);
      fs.chmodSync(config, 0o600);
      expect((await tick()).lines).toEqual([]);
    } finally {
      fs.rmSync(config);
    }
  });

  it('a wrong API key: exit 2, one line, and a Refused run record (Salesforce answered)', async () => {
    const t = await tick({ SVC_API_KEY: 'wrong-key-0123456789abcdef' });
    expect(t.code).toBe(2);
    oneFailureLine(t.lines, 2, /^check SVC_API_KEY and SVC_API_URL$/);
    const last = runs().pop();
    expect(last).toMatchObject({ Outcome__c: 'Refused' });
    expect(String(last?.Summary__c)).toMatch(/rejected the key/);
    expect(String(last?.Summary__c)).not.toContain('wrong-key-0123456789abcdef');
  });

  it('the platform down: exit 69 naming the host and what was tried; a Failed run record with the reason', async () => {
    const port = await closedPort();
    const t = await tick({ SVC_API_URL: `http://127.0.0.1:${port}` });
    expect(t.code).toBe(69);
    const line = oneFailureLine(t.lines, 69, /^svc-sync doctor$/);
    expect(line).toContain(`http://127.0.0.1:${port}`);
    expect(line).toMatch(/ECONNREFUSED.*\(\d+ attempts over \d+\.\d s\).*check that it is up and that SVC_API_URL points at it/);
    const last = runs().pop();
    expect(last).toMatchObject({ Outcome__c: 'Failed', Inserted__c: 0, Updated__c: 0 });
    expect(String(last?.Summary__c)).toContain(`exit 69: the platform API did not answer`);
  }, 60_000);

  it('Salesforce down: exit 69 naming its host; no run record can be written, and none is', async () => {
    const before = runs().length;
    const port = await closedPort();
    const t = await tick({ SF_INSTANCE_URL: `http://127.0.0.1:${port}` });
    expect(t.code).toBe(69);
    const line = oneFailureLine(t.lines, 69, /^svc-sync doctor$/);
    expect(line).toMatch(new RegExp(`Salesforce did not answer: .*ECONNREFUSED at http://127\\.0\\.0\\.1:${port} \\(\\d+ attempts`));
    expect(runs()).toHaveLength(before);
  }, 60_000);

  it('an overlap (the previous tick still running): exit 75 at once, one line naming the holder', async () => {
    const before = runs().length;
    const held = await acquireRunLock(path.join(dir, '.svc-sync'), { command: 'svc-sync sync --all', wait: false });
    try {
      const t = await tick();
      expect(t.code).toBe(75);
      const line = oneFailureLine(t.lines, 75, /^wait for the running one to finish \(this run did nothing\)$/);
      expect(line).toContain(`pid ${process.pid}`);
    } finally {
      held.release();
    }
    // It did nothing, Salesforce included: the run holding the state writes the record of its own run.
    expect(runs()).toHaveLength(before);
  });
});

/** README's "## Cron" code block, as a reader copies it. */
function readmeCronBlock(): string[] {
  const readme = fs.readFileSync(path.join(packageRoot(), 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Cron\n'));
  const block = /\n```sh\n([\s\S]*?)\n```\n/.exec(section)?.[1];
  if (block === undefined) throw new Error("README's Cron section has no sh block");
  return block.split('\n');
}

describe("README's cron block, copied literally: the first sync by hand, then cron's line in cron's environment", () => {
  let stack: Stack;
  let dir: string;
  const block = readmeCronBlock();

  beforeAll(async () => {
    stack = await startStack({ site: { seed: 50, segments: 1, projectsPerSegment: 1, donations: 6, newsletterSubscriptions: 1 } });
    dir = tempCwd('cron-readme');
  });
  afterAll(async () => {
    await stack.close();
    removeDir(dir);
  });

  it('runs as written: the backfill, then a tick that exits 0, writes nothing to stderr and one JSON line', async () => {
    // The reader's two choices, which README names: the folder, and PATH (node's folder first, then
    // svc-sync's, as `npm install -g` links it); every other character is the block's.
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.symlinkSync(BIN, path.join(bin, 'svc-sync'));
    const install = [path.dirname(process.execPath), bin, '/usr/bin', '/bin'].join(':');
    const ours = (line: string): string => line.replaceAll('/srv/svc-sync', dir);
    // svc-sync.env as the block's comment says: NAME=value a line, mode 600.
    fs.writeFileSync(
      path.join(dir, 'svc-sync.env'),
      Object.entries(stack.env)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(''),
      { mode: 0o600 },
    );

    const byHand = block.filter((l) => !l.startsWith('#') && / svc-sync sync --all\b/.test(l));
    expect(byHand).toHaveLength(1);
    const crontab = block.filter((l) => !l.startsWith('#') && !byHand.includes(l));
    const vars = Object.fromEntries(crontab.filter((l) => /^[A-Z_]+=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    const jobs = crontab.filter((l) => !/^[A-Z_]+=/.test(l));
    expect({ vars: Object.keys(vars).sort(), jobs: jobs.length }).toEqual({ vars: ['MAILTO', 'PATH'], jobs: 1 });
    const job = /^(\S+ ){5}(.+)$/.exec(jobs[0]!)?.[2];
    expect(job).toBeDefined();

    // By hand, in a login shell's environment with nothing exported: the settings come from the file.
    const first = await outputOf(spawn('/bin/sh', ['-c', ours(byHand[0]!)], { env: { PATH: install, HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] }));
    expect({ code: first.code, failed: first.stderr.split('\n').filter((l) => l.includes('svc-sync: ')) }).toEqual({ code: 0, failed: [] });

    // cron: `env -i`, then the crontab's variables (PATH the install's), HOME, LOGNAME, SHELL.
    const cronEnv = { ...vars, PATH: install, HOME: dir, LOGNAME: 'svc', SHELL: '/bin/sh' };
    const tick = await outputOf(spawn('/usr/bin/env', ['-i', ...Object.entries(cronEnv).map(([k, v]) => `${k}=${v}`), '/bin/sh', '-c', ours(job!)], { stdio: ['ignore', 'pipe', 'pipe'] }));
    expect({ code: tick.code, stderr: tick.stderr, stdout: tick.stdout }).toEqual({ code: 0, stderr: '', stdout: '' });
    const log = fs.readFileSync(path.join(dir, 'sync.jsonl'), 'utf8').trimEnd().split('\n');
    expect(log).toHaveLength(1);
    expect(JSON.parse(log[0]!)).toMatchObject({ status: 0, result: { command: 'sync' } });
  });
});
