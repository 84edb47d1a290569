/**
 * Hostile input and faults, as an attacker or an unlucky admin meets them through the built CLI:
 * secrets with line breaks, a base URL that is not the API, prototype names, a damaged state
 * file, standard output that cannot be written, a Salesforce 500, unbounded echoes.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, cliArgs, READ_WHOLE } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import type { ApiDonation } from '../../src/model/apiRecords.js';
import { cli, cliJson, donationSynced, keyOf, recordCount, removeDir, stackWithVictim, tempCwd, waitFor, writeCalls, unstamp } from './helpers.js';
import { WAIT_MS } from '../support/patience.js';

let stack: Stack;
let cwd: string;
let victim: ApiDonation;

beforeAll(async () => {
  ({ stack, cwd, victim } = await stackWithVictim('hostile', {
    segments: 1,
    projectsPerSegment: 1,
    teamsPerProject: 1,
    companiesPerProject: 0,
    actionsPerParent: 1,
    donations: 30,
    newsletterSubscriptions: 0,
  }));
});

afterAll(async () => {
  await stack.close();
  removeDir(cwd);
});

/** No stack trace, whatever went wrong: "    at fn (file:line)" lines. */
const expectNoStack = (text: string): void => expect(text).not.toMatch(/^\s+at .+:\d+/m);

const expectNothingWritten = (): void => {
  expect(writeCalls(stack)).toBe(0);
  expect(recordCount(stack)).toBe(0);
};

describe('secrets', () => {
  it('a token with a line break is refused at load and appears nowhere, not even in part', async () => {
    const token = '00DTOKEN-7c6b\r\nX-Evil: 1';
    const res = await cli(stack, ['--json', '--dry-run', 'object', 'donation', String(victim.id)], cwd, undefined, { ...stack.env, SF_ACCESS_TOKEN: token });
    expect(res.code).toBe(2);
    const body = JSON.parse(res.stdout) as { message: string };
    expect(body.message).toMatch(/^SF_ACCESS_TOKEN: contains a line break/);
    for (const text of [res.stdout, res.stderr]) {
      expect(text).not.toContain('00DTOKEN');
      expect(text).not.toContain('X-Evil');
    }
    expectNothingWritten();
  });

  it('a password inside SF_LOGIN_URL is never printed', async () => {
    const env = {
      SVC_API_URL: stack.env.SVC_API_URL,
      SVC_API_KEY: stack.env.SVC_API_KEY,
      SF_LOGIN_URL: 'https://admin:Hunter2-Secret@127.0.0.1:9/',
      SF_CLIENT_ID: 'client-id-1',
      SF_CLIENT_SECRET: 'client-secret-1',
    };
    for (const args of [['object', 'donation', String(victim.id)], ['--json', 'sync', '--all'], ['doctor']]) {
      const res = await cli(stack, args, cwd, undefined, env);
      expect(res.code).toBe(2);
      expect(`${res.stdout}${res.stderr}`).toMatch(/SF_LOGIN_URL: must not hold a user name or password/);
      expect(`${res.stdout}${res.stderr}`).not.toContain('Hunter2');
    }
  });

  it("masking never corrupts doctor's table: SVC_API_KEY=wrong leaves wrong_type whole and the columns aligned", async () => {
    stack.salesforce.alterField('Svc_Donation__c', 'Amount__c', { type: { kind: 'checkbox', default: false } });
    try {
      const res = await cli(stack, ['doctor'], cwd, undefined, { ...stack.env, SVC_API_KEY: 'wrong' });
      // A key sync refuses with 2 is 2 for doctor too.
      expect(res.code).toBe(2);
      expect(res.stdout).toMatch(/platform API: FAILED \(.*401/);
      expect(res.stdout).toContain('Fields of the wrong type (1):');
      expect(res.stdout).not.toContain('<SVC_API_KEY>');
      const head = res.stdout.split('\n').find((l) => /^\s+object\s+field\s+expected\s+actual$/.test(l));
      const row = res.stdout.split('\n').find((l) => /^\s+Svc_Donation__c\s+Amount__c\s+/.test(l));
      expect(head).toBeDefined();
      // Aligned: the row's "actual" cell starts under its heading.
      expect(row?.indexOf('boolean')).toBe(head?.indexOf('actual'));
    } finally {
      stack.salesforce.alterField('Svc_Donation__c', 'Amount__c', { type: { kind: 'number', precision: 16, scale: 2 } });
    }
  });
});

describe('a base URL that is not the platform API', () => {
  let foreign: Stack;
  beforeAll(async () => {
    foreign = await startStack({
      site: { segments: 1, projectsPerSegment: 1, teamsPerProject: 0, companiesPerProject: 0, actionsPerParent: 0, donations: 5, newsletterSubscriptions: 0 },
      unknownPaths: 'html',
    });
  });
  afterAll(async () => {
    await foreign.close();
  });

  // Another org than the shared folder's: a state folder of its own (a folder is bound to its org).
  const typoEnv = (s: Stack, userinfo = ''): Record<string, string> => ({
    ...s.env,
    SVC_API_URL: s.env.SVC_API_URL.replace('http://', `http://${userinfo}`) + '/api-typo',
    SVC_STATE_DIR: '.svc-sync-foreign',
  });

  it('object: an HTML 404 is a failure naming the URL (exit 1), not "deleted on the platform"', async () => {
    const id = foreign.platform.site.donation[0].id;
    const run = await cliJson(foreign, ['object', 'donation', String(id)], cwd, undefined, typoEnv(foreign, 'proxy-user:Proxy-Pass-123@'));
    expect(run.code).toBe(1);
    const rec = run.body.result.records.find((r) => r.key === keyOf('donation', id));
    expect(rec?.action).toBe('fail');
    expect(rec?.error?.message).toContain(`${foreign.platform.url}/api-typo/v1/donations/${id}`);
    expect(rec?.error?.message).toMatch(/HTTP 404 with a non-JSON body \(text\/html\).*check SVC_API_URL/);
    expect(run.stdout).not.toMatch(/not found on the platform/);
    expect(`${run.stdout}${run.stderr}`).not.toContain('Proxy-Pass-123');
    // Retried like any failure of the server, then kept as failed.
    expect(foreign.platform.requests.byId.donations ?? 0).toBe(0);
    expect(foreign.platform.requests.status[404]).toBeGreaterThan(1);
    expect(foreign.salesforce.records('Svc_Donation__c')).toEqual([]);
  });

  it.each([
    ['an HTML page', 'html' as const],
    ['the API itself behind a wrong path (its JSON 404)', 'platform' as const],
  ])('sync stops at start with exit 2 when the base URL answers %s, with no state written', async (_label, mode) => {
    const s = mode === 'html' ? foreign : stack;
    const dir = tempCwd('typo-sync');
    try {
      const res = await cli(s, ['sync', '--all'], dir, undefined, typoEnv(s));
      expect(res.code).toBe(2);
      // After the two lines naming the site and the org, one line says what is wrong.
      expect(
        unstamp(res.stderr)
          .trim()
          .split('\n')
          .filter((l) => !/^(site|org) /.test(l)),
      ).toHaveLength(1);
      expect(res.stderr).toMatch(/SVC_API_URL http:\/\/127\.0\.0\.1:\d+\/api-typo is not the platform's API: GET \/v1\/segments\?page=1&per_page=100 answered 404/);
      expect(fs.existsSync(path.join(dir, '.svc-sync', 'state.json'))).toBe(false);
    } finally {
      removeDir(dir);
    }
    // Nothing of the mirror written (the sync log of the earlier `object` run is not counted).
    expect(writeCalls(s)).toBe(0);
  });

  it('doctor reports the wrong base URL', async () => {
    const res = await cli(foreign, ['doctor'], cwd, undefined, typoEnv(foreign));
    expect(res.code).toBe(2);
    expect(res.stdout.replace(/\n\s+/g, ' ')).toMatch(/platform API: FAILED \(SVC_API_URL .*\/api-typo is not the platform's API/);
  });

  it('serve refuses to start on it (exit 2)', async () => {
    const res = await cli(foreign, ['serve', '--host', '127.0.0.1', '--port', '0'], cwd, undefined, { ...typoEnv(foreign), SVC_WEBHOOK_SECRET: 'hook-secret-1234' });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/svc-sync: SVC_API_URL .* is not the platform's API/);
  });
});

describe('serve: a proxy answering 404 in HTML loses no event', () => {
  let child: ChildProcess;
  let dir: string;
  let stderr = '';
  const SECRET = 'hook-secret-9d1e7a';

  beforeAll(async () => {
    dir = tempCwd('serve-404');
    child = spawn(process.execPath, cliArgs(['serve', '--host', '127.0.0.1', '--port', '0', '--settle', '0']), {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ...READ_WHOLE, ...stack.env, SVC_WEBHOOK_SECRET: SECRET },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  });
  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
    removeDir(dir);
  });

  it('the event stays queued for a retry and is not recorded as done', async () => {
    const base = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1], WAIT_MS, 'serve to listen');
    const other = stack.platform.site.donation.filter(donationSynced).find((d) => d.id !== victim.id)!;
    stack.platform.faults.next(1000, 'html404', { path: `/v1/donations/${other.id}` });
    try {
      const event = { object_type: 'Donation', object_id: other.id, event_type: 'donations.update', application: 'Kentaa', site_id: 6 };
      const res = await fetch(`${base}/webhooks/${SECRET}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(event) });
      expect(res.status).toBe(200);
      // One try and its retries reached the proxy; then the outcome is recorded.
      await waitFor(() => (stack.platform.requests.log.filter((e) => e.fault === 'html404').length >= 5 ? true : undefined), WAIT_MS, 'the by-id retries');
      // The worker logs its batch line once the outcome is in the queue: then look.
      await waitFor(() => (/webhook batch: \d+ events? \(/.test(stderr) ? true : undefined), WAIT_MS, 'the batch outcome');
      const queue = JSON.parse((await cli(stack, ['--json', 'queue'], dir)).stdout) as { result: { counts: Record<string, number> } };
      expect(queue.result.counts.done).toBe(0);
      expect(queue.result.counts.ignored).toBe(0);
      expect((queue.result.counts.pending ?? 0) + (queue.result.counts.failed ?? 0) + (queue.result.counts.processing ?? 0)).toBe(1);
      expect(stack.salesforce.get('Svc_Donation__c', keyOf('donation', other.id))).toBeUndefined();
    } finally {
      stack.platform.faults.clear();
    }
  });

  it('object_type "constructor" is answered 200 and recorded ignored, never a 503 the platform retries for a day', async () => {
    const base = await waitFor(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1], WAIT_MS, 'serve to listen');
    for (const objectType of ['constructor', '__proto__', 'toString']) {
      const event = { object_type: objectType, object_id: 1, event_type: 'donations.update', application: 'Kentaa', site_id: 6 };
      const res = await fetch(`${base}/webhooks/${SECRET}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(event) });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'ignored', reason: `object type ${objectType} is not mirrored` });
    }
  });
});

describe('names of the JavaScript object prototype', () => {
  it.each(['constructor', 'toString', '__proto__'])('object %s 1 is a usage error (exit 2, one line)', async (name) => {
    const res = await cli(stack, ['object', name, '1'], cwd);
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain(`object type "${name}": unknown`);
    expectNothingWritten();
  });

  it.each(['constructor', 'toString', '__proto__'])('{"env": "%s"} in the config file is a configuration error (exit 2, one line)', async (name) => {
    const file = path.join(cwd, `env-${name}.json`);
    fs.writeFileSync(file, JSON.stringify({ SVC_API_KEY: { env: name } }));
    const { SVC_API_KEY: _key, ...env } = stack.env;
    const res = await cli(stack, ['--config', file, 'object', 'donation', String(victim.id)], cwd, undefined, env);
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain(`config file ${file}: SVC_API_KEY is taken from the environment variable ${name}, which is not set`);
    expectNothingWritten();
  });
});

describe('the state file is validated', () => {
  const writeState = (dir: string, state: unknown): string => {
    const file = path.join(dir, 'state.json');
    fs.writeFileSync(file, JSON.stringify(state));
    return file;
  };
  const run = (pagesDone: unknown) => ({ version: 1, run: { startedAt: '2026-11-01T00:00:00.000Z', since: null, types: ['donation'], completed: [], pagesDone: { donation: pagesDone } } });

  it.each([
    ['pagesDone 1e9', run(1e9), /run\.pagesDone\.donation must be a whole number of pages from 0 to 10000000, not "1000000000"/],
    ['pagesDone "x"', run('x'), /run\.pagesDone\.donation must be a whole number of pages .*not "x"/],
    ['pagesDone -1', run(-1), /run\.pagesDone\.donation must be a whole number/],
    ['a watermark "not-a-date"', { version: 1, watermarks: { donation: 'not-a-date' } }, /watermarks\.donation must be an ISO 8601 date-time, not "not-a-date"; fix it, or remove it/],
    ['a retry entry without an id', { version: 1, retry: [{ type: 'donation' }] }, /retry\[0\] must be \{"type": <object type>, "id": <positive whole number>\}/],
  ])('%s: exit 2 naming the file and the fix, nothing sent', async (_label, state, message) => {
    const dir = tempCwd('state');
    try {
      const file = writeState(dir, state);
      stack.platform.resetCounts();
      const res = await cli(stack, ['sync', '--types', 'donations', '--state', file], dir);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain(`state file ${file}: `);
      expect(res.stderr).toMatch(message);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(stack.platform.requests.total).toBe(0);
      expectNothingWritten();
    } finally {
      removeDir(dir);
    }
  });

  it('a pagesDone past the end of the list scans from page 1 instead of passing the list as done', async () => {
    const dir = tempCwd('state-past');
    try {
      const file = writeState(dir, run(50));
      const res = await cliJson(stack, ['sync', '--all', '--types', 'donations', '--state', file], dir);
      expect(res.code).toBe(0);
      expect(res.body.result.resumed).toBe(true);
      const synced = stack.platform.site.donation
        .filter(donationSynced)
        .map((d) => keyOf('donation', d.id))
        .sort();
      expect(
        stack.salesforce
          .records('Svc_Donation__c')
          .map((r) => r.SvcId__c)
          .sort(),
      ).toEqual(synced);
      expect(res.body.result.summary.Svc_Donation__c.inserted).toBe(synced.length);
    } finally {
      removeDir(dir);
    }
  });
});

describe('standard output that cannot be written', () => {
  let big: Stack;
  beforeAll(async () => {
    // A --json dry run of a few hundred records: far more than a pipe buffer holds.
    big = await startStack({ site: { segments: 1, projectsPerSegment: 2, donations: 2000, newsletterSubscriptions: 20 } });
  });
  afterAll(async () => {
    await big.close();
  });

  // Asynchronous: the fake servers answer from this very process.
  const shell = (command: string): Promise<{ status: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve, reject) => {
      const child = spawn('bash', ['-c', command], { cwd, env: { PATH: process.env.PATH ?? '', ...READ_WHOLE, ...big.env, SVC_STATE_DIR: '.svc-sync-big' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });

  it("a pipe closed early (| head -c 20) ends quietly with the run's own exit code", async () => {
    const res = await shell(`'${process.execPath}' '${BIN}' --json --dry-run sync --all | head -c 20; echo " rc=\${PIPESTATUS[0]}"`);
    expect(res.stdout).toMatch(/^\{\n {2}"status": 0,[^]* rc=0\n$/);
    expect(res.stderr).toBe('');
  });

  it('a reader slower than the run (a full pipe) gets the whole document: the CLI waits for it, exit 0', async () => {
    const res = await shell(`'${process.execPath}' '${BIN}' --json --dry-run sync --all | (sleep 1; cat); echo " rc=\${PIPESTATUS[0]}"`);
    const [doc, rc] = res.stdout.split('\n rc=');
    expect(rc).toBe('0\n');
    expect((JSON.parse(doc as string) as { status: number }).status).toBe(0);
    expect(res.stderr).toBe('');
  });

  it('a full disk (> /dev/full) is one error line on stderr and exit 1', async () => {
    const res = await shell(`'${process.execPath}' '${BIN}' --json --dry-run object donation ${big.platform.site.donation[0].id} > /dev/full`);
    expect(res.status).toBe(1);
    expect(unstamp(res.stderr)).toBe('svc-sync: cannot write to standard output: no space left on the device (ENOSPC)\n');
    expectNoStack(res.stderr);
  });
});

describe('echoed input is cut and escaped', () => {
  it('an id with a line break and a huge type name give one bounded line each', async () => {
    const forged = await cli(stack, ['object', 'donation', '12\nsvc-sync: forged line'], cwd);
    expect(forged.code).toBe(2);
    expect(unstamp(forged.stderr)).toBe('svc-sync: object id "12\\nsvc-sync: forged line": must be a positive whole number\n');
    const huge = await cli(stack, ['object', 'x'.repeat(100_000), '1'], cwd);
    expect(huge.code).toBe(2);
    expect(huge.stderr.trim().split('\n')).toHaveLength(1);
    expect(huge.stderr.length).toBeLessThan(400);
    expect(huge.stderr).toContain('…" (100000 characters)');
  });

  it('an unknown command with a line break is one line too', async () => {
    const res = await cli(stack, ['frob\nsvc-sync: forged'], cwd);
    expect(res.code).toBe(2);
    expect(res.stderr).not.toMatch(/^svc-sync: forged/m);
  });
});

describe('smaller faults', () => {
  it('a config file with a UTF-8 byte order mark is read', async () => {
    const dir = tempCwd('bom');
    try {
      fs.writeFileSync(path.join(dir, 'svc-sync.config.json'), `\uFEFF${JSON.stringify(stack.env)}`, { mode: 0o600 });
      const run = await cliJson(stack, ['--dry-run', 'object', 'donation', String(victim.id)], dir, undefined, {});
      expect(run.code).toBe(0);
      // Read and used: the donation was looked up (an earlier test may have written it already).
      const d = run.body.result.summary.Svc_Donation__c;
      expect(d.inserted + d.updated + d.unchanged).toBe(1);
    } finally {
      removeDir(dir);
    }
  });

  it('a Salesforce 500 on a query is retried; when it persists the message says it came from Salesforce', async () => {
    const before = stack.salesforce.queries().length;
    stack.salesforce.failServerError(1);
    const ok = await cliJson(stack, ['--dry-run', 'object', 'donation', String(victim.id)], cwd);
    expect(ok.code).toBe(0);
    expect(stack.salesforce.queries().length).toBeGreaterThan(before);

    stack.salesforce.failServerError(100);
    try {
      const res = await cli(stack, ['--dry-run', 'object', 'donation', String(victim.id)], cwd);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/Salesforce answered with an internal error \(UNKNOWN_EXCEPTION\): An unexpected error occurred/);
    } finally {
      stack.salesforce.failServerError(0);
    }
  });
});

describe('echoed input on success paths', () => {
  it('schema --project with an escape sequence in the name: written, and printed escaped, never raw', async () => {
    const name = 'x\u001b[31mRED';
    const res = await cli(stack, ['schema', '--project', name], cwd);
    expect(res.code).toBe(0);
    expect(fs.existsSync(path.join(cwd, name, 'sfdx-project.json'))).toBe(true);
    for (const text of [res.stdout, res.stderr]) expect(text).not.toContain('\u001b');
    expect(res.stdout).toContain('x\\u001b[31mRED');
  });
});
