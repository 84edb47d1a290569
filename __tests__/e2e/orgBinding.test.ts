/**
 * A state folder is bound to the org (and site) it describes (issue 47, row 1): pointed at another
 * org (a refreshed sandbox, sandbox to production), a run is refused in one line naming both orgs
 * and the two ways on, nothing written; `--new-org` forgets the folder's progress and starts over.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { cli, expectFullMirror, recordCount, removeDir, tempCwd, writeCalls } from './helpers.js';

describe('a state folder pointed at another org', () => {
  let a: Stack;
  let b: Stack;
  let cwd = '';
  /** The same platform and site, written into org B. */
  const envB = (): Record<string, string> => ({ ...a.env, SF_INSTANCE_URL: b.env.SF_INSTANCE_URL!, SF_ACCESS_TOKEN: b.env.SF_ACCESS_TOKEN! });
  const orgOf = (s: Stack): string => s.salesforce.orgId.slice(0, 15);

  beforeAll(async () => {
    a = await startStack({ site: { seed: 11, donations: 12, newsletterSubscriptions: 3 } });
    b = await startStack({ site: { seed: 11, donations: 12, newsletterSubscriptions: 3 } });
    cwd = tempCwd('org-binding');
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    removeDir(cwd);
  });

  it('records the org and site with the progress; another org is refused (exit 2, one line), nothing written', async () => {
    const env = { ...a.env, SVC_SITE_ID: '6' };
    expect((await cli(a, ['sync', '--all'], cwd, undefined, env)).code).toBe(0);
    const record = JSON.parse(fs.readFileSync(path.join(cwd, '.svc-sync', 'org.json'), 'utf8')) as Record<string, unknown>;
    expect(record).toMatchObject({ orgId: orgOf(a), siteId: '6' });
    b.salesforce.resetCalls();
    const run = await cli(b, ['sync'], cwd, undefined, { ...envB(), SVC_SITE_ID: '6' });
    expect(run.code).toBe(2);
    const line = `svc-sync: state folder .svc-sync belongs to org ${orgOf(a)}, site 6, but this run reached org ${orgOf(b)}, site 6: its progress would skip this org's records; give this org its own state folder (SVC_STATE_DIR), or run \`svc-sync sync --all --new-org\` to forget the folder's progress and start over`;
    expect(run.stderr).toContain(line);
    expect(run.stderr.split('\n').filter((l) => l.includes('belongs to'))).toHaveLength(1);
    expect(writeCalls(b)).toBe(0);
    expect(recordCount(b)).toBe(0);
    // The record still names org A: a refused run changes nothing.
    expect(JSON.parse(fs.readFileSync(path.join(cwd, '.svc-sync', 'org.json'), 'utf8'))).toMatchObject({ orgId: orgOf(a) });
  }, 60_000);

  it('another site on the same folder is refused the same way', async () => {
    const run = await cli(a, ['sync'], cwd, undefined, { ...a.env, SVC_SITE_ID: '8' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`state folder .svc-sync belongs to org ${orgOf(a)}, site 6, but this run reached org ${orgOf(a)}, site 8`);
  });

  it('a dry run with --new-org cannot start over; a run with it forgets the progress and mirrors org B whole', async () => {
    const dry = await cli(b, ['--dry-run', 'sync', '--all', '--new-org'], cwd, undefined, { ...envB(), SVC_SITE_ID: '6' });
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain('a dry run writes nothing, so it cannot start over');
    // Without --all, a fresh folder has no watermark: said as for any first run.
    const bare = await cli(b, ['sync', '--new-org'], cwd, undefined, { ...envB(), SVC_SITE_ID: '6' });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/no watermark in .* yet for segment.*: give --since <iso8601> or --all for the first run/);
    const run = await cli(b, ['sync', '--all', '--new-org'], cwd, undefined, { ...envB(), SVC_SITE_ID: '6' });
    expect(run.code).toBe(0);
    expectFullMirror(b, a.platform.site);
    expect(JSON.parse(fs.readFileSync(path.join(cwd, '.svc-sync', 'org.json'), 'utf8'))).toMatchObject({ orgId: orgOf(b), siteId: '6' });
    // Now org A is the other one.
    expect((await cli(a, ['sync'], cwd, undefined, { ...a.env, SVC_SITE_ID: '6' })).code).toBe(2);
    expect((await cli(b, ['sync'], cwd, undefined, { ...envB(), SVC_SITE_ID: '6' })).code).toBe(0);
  }, 60_000);
});
