/**
 * Issue 29, unattended runs: a failure reaches cron's mail whatever --json / --quiet say, one run
 * at a time per state folder (exit 75, or --wait), the Salesforce session checked before the
 * platform is read, and every run saying which site and which org it acts on.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliArgs, type CliResult, outputOf, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, cliJson, donationSynced, keyOf, removeDir, sfRecord, tempCwd } from './helpers.js';

/** Each line on stderr, without the time stamp a log line begins with (stderr is not a terminal here). */
const stderrLines = (text: string): string[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z /, ''));

/** Polls a condition of another process's progress (no timing is asserted: it only waits). */
async function until(what: string, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (cond()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** The CLI started in the background: its pid, its output so far, and its end. */
function start(stack: Stack, args: string[], cwd: string): { pid: number; stderr: () => string; done: Promise<CliResult>; kill: () => void } {
  const child = spawn(process.execPath, cliArgs(args), { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...READ_WHOLE, ...stack.env }, stdio: 'pipe' });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const done = outputOf(child);
  child.stdin.end();
  return { pid: child.pid as number, stderr: () => err, done: done.then((r) => ({ ...r, stderr: err })), kill: () => child.kill('SIGKILL') };
}

describe('unattended runs', () => {
  let stack: Stack;
  let cwd: string;

  beforeAll(async () => {
    stack = await startStack({ site: { seed: 29, segments: 1, projectsPerSegment: 1, donations: 12, newsletterSubscriptions: 2 } });
    cwd = tempCwd('unattended');
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  describe('1. failures reach cron', () => {
    it('a rejected key with --json --quiet: the JSON document on stdout, one line on stderr naming the outcome and the fix', async () => {
      const run = await cliJson(stack, ['--quiet', 'sync', '--all'], cwd, undefined, { ...stack.env, SVC_API_KEY: 'wrong-key-0123456789' });
      expect(run.code).toBe(2);
      expect(run.body.status).toBe(2);
      const lines = stderrLines(run.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/svc-sync: exit 2: platform API rejected the key or URL: .*; next: check SVC_API_KEY and SVC_API_URL/);
      expect(run.stderr).not.toContain('wrong-key-0123456789');
    });

    it('a partial run with --json --quiet: exit 1 and one line on stderr saying how many failed and what next', async () => {
      const victim = stack.platform.site.donation.find(donationSynced)!;
      const before = { ...victim };
      stack.platform.update('donation', victim.id, { total_amount: 'not a number' });
      try {
        const run = await cliJson(stack, ['--quiet', 'object', 'donation', String(victim.id)], cwd);
        expect(run.code).toBe(1);
        const lines = stderrLines(run.stderr);
        expect(lines).toHaveLength(1);
        // The cron mail names the record and the reason, not only the count (issue 40).
        expect(lines[0]).toMatch(new RegExp(`svc-sync: exit 1: 1 record failed: 1 Svc_Donation__c INVALID_VALUE: .+ \\(${keyOf('donation', victim.id)}\\); next: `));
      } finally {
        stack.platform.update('donation', victim.id, { total_amount: before.total_amount });
      }
    });

    it('success with --quiet (and with --json --quiet) writes nothing to stderr', async () => {
      const plain = await cli(stack, ['--quiet', 'sync', '--all'], cwd);
      expect(plain.code).toBe(0);
      expect(plain.stderr).toBe('');
      expect(plain.stdout).toBe('');
      const json = await cliJson(stack, ['--quiet', 'sync'], cwd);
      expect(json.code).toBe(0);
      expect(json.stderr).toBe('');
    });

    it('--json-lines: one run is one line of JSON on stdout, as --json would print it', async () => {
      const res = await cli(stack, ['--json-lines', '--quiet', 'sync'], cwd);
      expect(res.code).toBe(0);
      expect(res.stdout.endsWith('\n')).toBe(true);
      expect(res.stdout.trimEnd().split('\n')).toHaveLength(1);
      const doc = JSON.parse(res.stdout) as { status: number; result: { command: string } };
      expect(doc.status).toBe(0);
      expect(doc.result.command).toBe('sync');
      // An error before the run is one line too, and mailed on stderr.
      const bad = await cli(stack, ['--json-lines', 'sync', '--since', 'yesterday'], cwd);
      expect(bad.code).toBe(2);
      expect(bad.stdout.trimEnd().split('\n')).toHaveLength(1);
      expect((JSON.parse(bad.stdout) as { status: number }).status).toBe(2);
      expect(bad.stderr).toMatch(/--since "yesterday"/);
    });
  });

  describe('4. say where', () => {
    it('the first lines name the site and the org, and which source won when a config file says otherwise', async () => {
      const dir = tempCwd('where');
      try {
        fs.writeFileSync(path.join(dir, 'svc-sync.config.json'), JSON.stringify({ SVC_API_URL: 'http://127.0.0.1:9', SVC_API_KEY: 'another-stack-key' }), { mode: 0o600 });
        const human = await cli(stack, ['sync', '--all'], dir);
        expect(human.code).toBe(0);
        const [site, org] = stderrLines(human.stderr);
        const platformHost = new URL(stack.platform.url).host;
        const orgHost = new URL(stack.salesforce.url).host;
        expect(site).toBe(`site ? (SVC_SITE_ID not set) at ${platformHost} (env, over the config file)`);
        expect(org).toBe(`org ${stack.salesforce.orgId.slice(0, 15)} at ${orgHost}`);
        for (const line of [site, org]) expect(line!.length).toBeLessThanOrEqual(80);
        const json = await cliJson(stack, ['sync'], dir, undefined, { ...stack.env, SVC_SITE_ID: '6' });
        const where = (json.body.result as unknown as { where: Record<string, unknown> }).where;
        expect(where).toEqual({
          site: { id: 6, host: platformHost, from: { setting: 'SVC_API_URL', source: 'environment', alsoInFile: true } },
          org: { instanceHost: orgHost, orgId: stack.salesforce.orgId.slice(0, 15), from: { setting: 'SF_INSTANCE_URL', source: 'environment', alsoInFile: false } },
        });
      } finally {
        removeDir(dir);
      }
    });
  });

  describe('8. object', () => {
    it('prints the Salesforce id of what it wrote, and a link with --verbose', async () => {
      const d = stack.platform.site.donation.find(donationSynced)!;
      const res = await cli(stack, ['--verbose', 'object', 'donation', String(d.id)], cwd);
      expect(res.code).toBe(0);
      const id = sfRecord(stack, 'donation', d.id).Id as string;
      expect(res.stdout).toContain(`Svc_Donation__c ${keyOf('donation', d.id)}: Salesforce id ${id}`);
      expect(res.stdout).toContain(`${stack.salesforce.url}/lightning/r/Svc_Donation__c/${id}/view`);
      const json = await cliJson(stack, ['object', 'donation', String(d.id)], cwd);
      expect((json.body.result as unknown as { salesforceId: string }).salesforceId).toBe(id);
    });

    it('doctor and sync give the same exit code for the same rejected key', async () => {
      const env = { ...stack.env, SVC_API_KEY: 'rejected-key-0123456789' };
      const doctor = await cli(stack, ['doctor'], cwd, undefined, env);
      const sync = await cli(stack, ['sync', '--all'], cwd, undefined, env);
      expect(sync.code).toBe(2);
      expect(doctor.code).toBe(sync.code);
    });

    it('sync with no settings names every missing one, and nothing about watermarks', async () => {
      const empty = tempCwd('no-settings');
      try {
        const res = await cli(stack, ['sync'], empty, undefined, {});
        expect(res.code).toBe(2);
        expect(res.stderr).toMatch(/settings are missing: SVC_API_URL .*SVC_API_KEY .*a Salesforce login/);
        expect(res.stderr).not.toMatch(/watermark/);
      } finally {
        removeDir(empty);
      }
    });

    it('a record not on the platform: exit 3, said as such, in --json too', async () => {
      const res = await cli(stack, ['object', 'donation', '987654'], cwd);
      expect(res.code).toBe(3);
      expect(res.stderr).toMatch(/exit 3: donation 987654 is not on the platform/);
      const json = await cliJson(stack, ['object', 'donation', '987654'], cwd);
      expect(json.body.status).toBe(3);
    });
  });
});

describe('2. one run at a time', () => {
  let stack: Stack;
  let cwd: string;
  beforeAll(async () => {
    stack = await startStack({ site: { seed: 30, segments: 1, projectsPerSegment: 1, donations: 6, newsletterSubscriptions: 0 } });
    cwd = tempCwd('lock');
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('a second run exits 75 naming the first; --wait waits; a killed run leaves no stale lock', async () => {
    // The first run's first platform request is held: it is under way, holding the lock.
    stack.platform.faults.next(1, 'slow', { delayMs: 600_000 });
    const first = start(stack, ['sync', '--all'], cwd);
    await until('the first run to reach the platform', () => stack.platform.requests.total > 0);
    const platformBefore = stack.platform.requests.total;
    const sfBefore = stack.salesforce.calls().total;

    const second = await cli(stack, ['sync', '--all'], cwd);
    expect(second.code).toBe(75);
    const lines = stderrLines(second.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`pid ${first.pid}, started `);
    expect(lines[0]).toContain('svc-sync sync --all');
    // It did nothing: no request to either side.
    expect(stack.platform.requests.total).toBe(platformBefore);
    expect(stack.salesforce.calls().total).toBe(sfBefore);

    // Other commands on the same state are held off too, and --json says so.
    const object = await cliJson(stack, ['object', 'donation', '1'], cwd);
    expect(object.code).toBe(75);
    expect(object.body).toMatchObject({ status: 75, name: 'RunLockedError' });
    expect(stderrLines(object.stderr)).toHaveLength(1);
    // A read-only audit is not.
    const audit = await cli(stack, ['--dry-run', 'audit', '--fix'], cwd);
    expect(audit.code).not.toBe(75);

    const waiting = start(stack, ['sync', '--all', '--wait'], cwd);
    await until('the waiting run to say so', () => /waiting up to 30 min for the run holding .*run\.lock \(pid \d+/.test(waiting.stderr()));
    // The first run crashes (SIGKILL: no handler runs): the operating system drops its lock.
    first.kill();
    await first.done;
    const waited = await waiting.done;
    expect(waited.code).toBe(0);
    const ran = await cli(stack, ['sync'], cwd);
    expect(ran.code).toBe(0);
  }, 120_000);

  it('a --wait run stopped by SIGTERM while it waits says it did nothing, never "progress saved"', async () => {
    stack.platform.faults.next(1, 'slow', { delayMs: 600_000 });
    const first = start(stack, ['sync', '--all'], cwd);
    try {
      await until('the first run to reach the platform', () => stack.platform.faults.pending() === 0);
      const waiting = start(stack, ['sync', '--wait'], cwd);
      await until('the waiting run to say so', () => /waiting up to .* for the run holding /.test(waiting.stderr()));
      process.kill(waiting.pid, 'SIGTERM');
      const stopped = await waiting.done;
      expect(stopped.code).toBe(143);
      const lines = stderrLines(stopped.stderr).filter((l) => !l.startsWith('waiting up to'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/stopped by SIGTERM while waiting for the run holding .*run\.lock: this run did nothing; run again with: svc-sync sync --wait$/);
      expect(stopped.stderr).not.toContain('progress saved');
    } finally {
      first.kill();
      await first.done;
    }
  }, 120_000);

  it('a state folder that is a file is a configuration error naming it (exit 2), before any request', async () => {
    const dir = tempCwd('state-file');
    try {
      fs.writeFileSync(path.join(dir, '.svc-sync'), 'not a folder\n');
      const platformBefore = stack.platform.requests.total;
      const res = await cli(stack, ['sync'], dir);
      expect(res.code).toBe(2);
      const lines = stderrLines(res.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/state folder \.svc-sync: is a file, not a folder; move it away, or choose another folder \(SVC_STATE_DIR\)$/);
      // Below a file: the file is named.
      const below = await cli(stack, ['sync'], dir, undefined, { ...stack.env, SVC_STATE_DIR: path.join(dir, '.svc-sync', 'north') });
      expect(below.code).toBe(2);
      expect(stderrLines(below.stderr)[0]).toContain(`state folder ${path.join(dir, '.svc-sync', 'north')}: ${path.join(dir, '.svc-sync')} is a file, not a folder`);
      expect(stack.platform.requests.total).toBe(platformBefore);
    } finally {
      removeDir(dir);
    }
  });
});

describe('3. the session checked on every run that writes', () => {
  let stack: Stack;
  let cwd: string;
  beforeAll(async () => {
    stack = await startStack({ site: { seed: 31, segments: 1, projectsPerSegment: 1, donations: 6, newsletterSubscriptions: 0 } });
    cwd = tempCwd('session');
    const first = await cli(stack, ['sync', '--all'], cwd);
    if (first.code !== 0) throw new Error(`first sync: ${first.stderr}`);
  });
  afterAll(async () => {
    await stack.close();
    removeDir(cwd);
  });

  it('a run with nothing to sync costs one Salesforce call: the org limits', async () => {
    const before = stack.salesforce.calls();
    const run = await cliJson(stack, ['sync'], cwd);
    expect(run.code).toBe(0);
    const after = stack.salesforce.calls();
    // The session check is one call (the org's limits); the rest is the sync log in the org, which
    // counts its own calls (at most 3 a run).
    const logCalls = (run.body.result as { salesforceLog?: { calls: number } }).salesforceLog?.calls ?? 0;
    expect(logCalls).toBeLessThanOrEqual(3);
    expect(after.total - before.total).toBe(1 + logCalls);
    expect(after.other - before.other).toBe(1);
    expect(run.body.result.requests.salesforce).toBe(1 + logCalls);
  });

  it('an allowance already used up stops the run before the platform is read', async () => {
    stack.salesforce.setApiUsage(99_500);
    stack.platform.resetCounts();
    try {
      const res = await cli(stack, ['sync'], cwd);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/daily API requests are used/);
      expect(stack.platform.requests.total).toBe(0);
    } finally {
      stack.salesforce.setApiUsage(0);
    }
  });

  it('an expired session token with nothing to sync: exit 2 before the platform is read, and the line reaches cron under --json --quiet', async () => {
    stack.salesforce.expireSession();
    stack.platform.resetCounts();
    const res = await cli(stack, ['sync'], cwd);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/session is invalid or expired/);
    const json = await cliJson(stack, ['--quiet', 'sync'], cwd);
    expect(json.code).toBe(2);
    expect(json.body.status).toBe(2);
    expect(stderrLines(json.stderr)).toHaveLength(1);
    expect(json.stderr).toMatch(/exit 2: .*session is invalid or expired.*; next: /);
    expect(stack.platform.requests.total).toBe(0);
  });
});
