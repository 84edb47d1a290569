/** One org per connection: what a login found is recorded, and a second connection on that org refused. */
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { configErrorOf } from '../support/configError.js';
import { claimOrg, readOrgRecord } from '../../src/config/orgRecord.js';
import { orgIdProblem } from '../../src/model/orgId.js';
import { loadDeployment } from '../../src/config/connections.js';
import { tempFolders } from '../support/tempFolders.js';

const tmp = tempFolders('svc-org-record-');

const errorOf = configErrorOf;

const WHY = 'two sites in one org need SVC_SITE_KEYS=true on both (north and south lack it)';
const BOTH = 'set SVC_SITE_KEYS=true on both (north and south lack it)';

describe('claimOrg', () => {
  it('records the org of a named connection, atomically, and refuses another connection on it (15 or 18 characters alike)', () => {
    const dir = tmp();
    const all = ['north', 'south', 'east'].map((name) => ({ name, stateDir: path.join(dir, name) }));
    const [north, south, east] = all as [(typeof all)[0], (typeof all)[0], (typeof all)[0]];
    claimOrg(all, north, { orgId: '00D5g000001NortEAC', instanceUrl: 'https://north.example' }, true);
    expect(readOrgRecord(north.stateDir)).toMatchObject({ orgId: '00D5g000001NortEAC', instanceUrl: 'https://north.example' });
    expect(fs.readdirSync(north.stateDir)).toEqual(['org.json']);
    // South comes second in the file: named second, whichever logged in first.
    const refused = errorOf(() => claimOrg(all, south, { orgId: '00D5g000001Nort', instanceUrl: 'https://other.example' }, true));
    expect(refused.message).toBe(`connections north and south both log in to org 00D5g000001Nort; ${BOTH}`);
    expect(refused.actions?.[0]).toContain(path.join(north.stateDir, 'org.json'));
    expect(readOrgRecord(south.stateDir)).toBeUndefined();
    // Another org is fine; a dry run (record: false) writes nothing.
    claimOrg(all, east, { orgId: '00D5g000001East', instanceUrl: 'https://east.example' }, false);
    expect(readOrgRecord(east.stateDir)).toBeUndefined();
  });

  it('refuses an org reached earlier in this process though nothing was recorded (a dry run)', () => {
    const dir = tmp();
    const all = ['one', 'two'].map((name) => ({ name, stateDir: path.join(dir, name) }));
    claimOrg(all, all[1]!, { orgId: '00D5g000002Same', instanceUrl: 'https://a.example' }, false);
    expect(errorOf(() => claimOrg(all, all[0]!, { orgId: '00D5g000002Same', instanceUrl: 'https://b.example' }, false)).message).toBe(
      'connections one and two both log in to org 00D5g000002Same; set SVC_SITE_KEYS=true on both (one and two lack it)',
    );
    // The same connection again (a second command of the process) is no conflict.
    claimOrg(all, all[1]!, { orgId: '00D5g000002Same', instanceUrl: 'https://a.example' }, false);
  });

  it('does nothing for an org id not known; the one implicit connection records its org too (issue 47, row 1)', () => {
    const dir = tmp();
    claimOrg([{ name: 'a', stateDir: dir }], { name: 'a', stateDir: dir }, { instanceUrl: 'https://x.example' }, true);
    expect(fs.readdirSync(dir)).toEqual([]);
    claimOrg([{ name: undefined, stateDir: dir }], { name: undefined, stateDir: dir }, { orgId: '00D5g000003Only', instanceUrl: 'https://x.example' }, true);
    expect(readOrgRecord(dir)?.orgId).toBe('00D5g000003Only');
  });

  it('a file that is not an org record is no record', () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'org.json'), '{"orgId": "not an org"}');
    expect(readOrgRecord(dir)).toBeUndefined();
    fs.writeFileSync(path.join(dir, 'org.json'), 'nonsense');
    expect(readOrgRecord(dir)).toBeUndefined();
  });
});

describe('an org record that cannot be read fails closed (issue 37, row 6)', () => {
  const TRUNCATED = '{"orgId": "00D5g00000';
  const setUp = (): { all: Array<{ name: string; stateDir: string }>; north: { name: string; stateDir: string }; south: { name: string; stateDir: string } } => {
    const dir = tmp();
    const all = ['north', 'south'].map((name) => ({ name, stateDir: path.join(dir, name) }));
    for (const c of all) fs.mkdirSync(c.stateDir);
    return { all, north: all[0]!, south: all[1]! };
  };
  const why = (file: string, what: string): string => `connections north and south: the org record of north (${file}) ${what}, so south may log in to its org; ${WHY}`;
  const fix = 'run north alone once (svc-sync doctor --connection north): its login records its org again; if it no longer runs, remove it from the config file';

  it("another's record truncated, unreadable or not one of ours: refused before anything is written, naming both and what to do", () => {
    const { all, north, south } = setUp();
    const file = path.join(north.stateDir, 'org.json');
    const cases: Array<[() => void, string]> = [
      [() => fs.writeFileSync(file, TRUNCATED), 'is not JSON (truncated?)'],
      [() => fs.writeFileSync(file, '{"orgId": "00D"}'), 'holds no org id'],
      [
        () => {
          fs.rmSync(file, { force: true });
          fs.mkdirSync(file);
        },
        'cannot be read (EISDIR)',
      ],
    ];
    for (const [make, what] of cases) {
      make();
      const e = errorOf(() => claimOrg(all, south, { orgId: '00D5g000005SameEAC', instanceUrl: 'https://south.example' }, true));
      expect(e.message).toBe(why(file, what));
      expect(e.actions).toEqual([fix]);
      expect(fs.readdirSync(south.stateDir)).toEqual([]);
    }
  });

  it('missing though the other connection has synced (an earlier release): refused; never run: compared with what this process reached', () => {
    const { all, north, south } = setUp();
    fs.writeFileSync(path.join(north.stateDir, 'state.json'), '{}');
    expect(errorOf(() => claimOrg(all, south, { orgId: '00D5g000006SameEAC', instanceUrl: 'https://south.example' }, true)).message).toBe(
      why(path.join(north.stateDir, 'org.json'), 'is missing though the connection has synced'),
    );
    // South with site keys: the line names only north as lacking them.
    const keyed = { ...south, raw: { SVC_SITE_KEYS: 'true' } };
    expect(errorOf(() => claimOrg([north, keyed], keyed, { orgId: '00D5g000006SameEAC', instanceUrl: 'https://south.example' }, true)).message).toContain(
      'two sites in one org need SVC_SITE_KEYS=true on both (north lacks it)',
    );
    // North never run: nothing to compare but this process's logins.
    fs.rmSync(path.join(north.stateDir, 'state.json'));
    claimOrg(all, south, { orgId: '00D5g000006SameEAC', instanceUrl: 'https://south.example' }, true);
    expect(readOrgRecord(south.stateDir)?.orgId).toBe('00D5g000006SameEAC');
  });

  it("its own record unreadable: a warning once, recorded again; doctor (writes nothing) only warns of another's, and records its own", () => {
    const { all, north, south } = setUp();
    fs.writeFileSync(path.join(south.stateDir, 'org.json'), TRUNCATED);
    const warnings: string[] = [];
    const doctor = { writes: false, warn: (w: string) => warnings.push(w) };
    claimOrg(all, south, { orgId: '00D5g000008OwnsEAC', instanceUrl: 'https://south.example' }, true, doctor);
    expect(warnings).toEqual([`connection south: its org record ${path.join(south.stateDir, 'org.json')} is not JSON (truncated?); recorded again from this login`]);
    expect(readOrgRecord(south.stateDir)?.orgId).toBe('00D5g000008OwnsEAC');
    claimOrg(all, south, { orgId: '00D5g000008OwnsEAC', instanceUrl: 'https://south.example' }, true, doctor);
    expect(warnings).toHaveLength(1);
    // North's record unreadable: doctor of south warns, a writing command is refused.
    fs.writeFileSync(path.join(north.stateDir, 'org.json'), TRUNCATED);
    claimOrg(all, south, { orgId: '00D5g000008OwnsEAC', instanceUrl: 'https://south.example' }, true, doctor);
    expect(warnings[1]).toBe(why(path.join(north.stateDir, 'org.json'), 'is not JSON (truncated?)'));
    expect(() => claimOrg(all, south, { orgId: '00D5g000008OwnsEAC', instanceUrl: 'https://south.example' }, true)).toThrow(/the org record of north/);
  });
});

describe('at load', () => {
  it('two connections whose recorded orgs are one are refused, naming both and the file to delete', () => {
    const cwd = tmp();
    fs.writeFileSync(
      path.join(cwd, 'svc-sync.config.json'),
      JSON.stringify({ connections: { north: { SVC_SITE_ID: 7, SF_INSTANCE_URL: 'https://a.example' }, south: { SVC_SITE_ID: 8, SF_INSTANCE_URL: 'https://b.example' } } }),
    );
    const record = (name: string, orgId: string): void => {
      fs.mkdirSync(path.join(cwd, '.svc-sync', name), { recursive: true });
      fs.writeFileSync(path.join(cwd, '.svc-sync', name, 'org.json'), JSON.stringify({ orgId, instanceUrl: 'https://x.example', recordedAt: '2026-11-26T00:00:00.000Z' }));
    };
    record('north', '00D5g000004TwinEAC');
    record('south', '00D5g000004Twin');
    const prev = process.cwd();
    process.chdir(cwd);
    try {
      const e = errorOf(() => loadDeployment({ cwd, env: {} }));
      expect(e.message).toBe(`connections north and south both log in to org 00D5g000004Twin; ${BOTH}`);
      expect(e.actions).toEqual([`or give each its own org; if south no longer logs in to it, delete ${path.join('.svc-sync', 'south', 'org.json')}`]);
      record('south', '00D5g000004Othr');
      expect(loadDeployment({ cwd, env: {} }).connections).toHaveLength(2);
    } finally {
      process.chdir(prev);
    }
  });
});

describe('a state folder bound to its org and site (issue 47, row 1)', () => {
  const A = '00D5g000009OrgA';
  const B = '00D5g000009OrgBEAS';
  const seeded = (): string => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'state.json'), '{"version": 1}');
    fs.writeFileSync(path.join(dir, 'owners.json'), '{}');
    fs.writeFileSync(path.join(dir, 'profile.json'), '{}');
    fs.writeFileSync(path.join(dir, 'org.json'), JSON.stringify({ orgId: A, instanceUrl: 'https://a.example', siteId: '6', recordedAt: '2026-12-01T00:00:00.000Z' }));
    return dir;
  };
  const line = (dir: string, site = '6'): string =>
    `state folder ${dir} belongs to org ${A}, site 6, but this run reached org ${B.slice(0, 15)}, site ${site}: its progress would skip this org's records; give this org its own state folder (SVC_STATE_DIR), or run \`svc-sync sync --all --new-org\` to forget the folder's progress and start over`;

  it('a named connection whose login reaches another org: refused, its record left naming the old org', () => {
    const dir = seeded();
    const north = { name: 'north', stateDir: dir };
    expect(errorOf(() => claimOrg([north], north, { orgId: B, instanceUrl: 'https://a.example' }, true, { siteId: '6' })).message).toBe(line(dir));
    expect(readOrgRecord(dir)?.orgId).toBe(A);
  });

  it('the implicit connection on another site: refused; the same org and site (15 or 18 characters) pass', () => {
    const dir = seeded();
    const only = { name: undefined, stateDir: dir };
    expect(errorOf(() => claimOrg([only], only, { orgId: '00D5g000009OrgAEAS', instanceUrl: 'https://a.example' }, true, { siteId: '7' })).message).toContain(
      `belongs to org ${A}, site 6, but this run reached org ${A}, site 7`,
    );
    expect(claimOrg([only], only, { orgId: '00D5g000009OrgAEAS', instanceUrl: 'https://a.example' }, true, { siteId: '6' })).toBe(false);
  });

  it('--new-org forgets the progress and owners (the platform profile stays) and records the new org; doctor only warns', () => {
    const dir = seeded();
    const only = { name: undefined, stateDir: dir };
    const warnings: string[] = [];
    expect(claimOrg([only], only, { orgId: B, instanceUrl: 'https://b.example' }, true, { siteId: '6', writes: false, warn: (w) => warnings.push(w) })).toBe(false);
    expect(warnings).toEqual([line(dir).replace("its progress would skip this org's records", 'sync refuses it')]);
    expect(errorOf(() => claimOrg([only], only, { orgId: B, instanceUrl: 'https://b.example' }, false, { siteId: '6', startOver: true })).message).toContain('a dry run writes nothing');
    expect(fs.readdirSync(dir).sort()).toEqual(['org.json', 'owners.json', 'profile.json', 'state.json']);
    expect(claimOrg([only], only, { orgId: B, instanceUrl: 'https://b.example' }, true, { siteId: '6', startOver: true })).toBe(true);
    expect(fs.readdirSync(dir).sort()).toEqual(['org.json', 'profile.json']);
    expect(readOrgRecord(dir)).toMatchObject({ orgId: B, siteId: '6' });
  });
});

describe('one rule for an org id (issue 47, row 14)', () => {
  it('15 or 18 characters, 00D and letters or digits, the 18-character form with its checksum', () => {
    expect(orgIdProblem('00D5g000009OrgA')).toBeUndefined();
    expect(orgIdProblem('00D5g000009OrgAEAS')).toBeUndefined();
    expect(orgIdProblem('00D5g000000EmuAAA')).toBe('17 characters; an org id has 15 or 18');
    expect(orgIdProblem('00D5g000009OrgAAAA')).toBe("its last 3 characters are not the checksum of the first 15's case");
    expect(orgIdProblem('00D5g00000-OrgA')).toBe('an org id is 00D and letters or digits only');
    expect(orgIdProblem('0015g000009OrgA')).toBe('an org id is 00D and letters or digits only');
  });

  it('an org.json of another length is refused at load, in one line naming the file and the rule', () => {
    const cwd = tmp();
    fs.mkdirSync(path.join(cwd, '.svc-sync'));
    fs.writeFileSync(path.join(cwd, '.svc-sync', 'org.json'), JSON.stringify({ orgId: '00D5g000000EmuAAA', instanceUrl: 'https://x.example' }));
    const e = errorOf(() => loadDeployment({ cwd, env: { SVC_STATE_DIR: path.join(cwd, '.svc-sync') } }));
    expect(e.message).toBe(
      `org record ${path.join(cwd, '.svc-sync', 'org.json')}: orgId "00D5g000000EmuAAA" is not an org id (17 characters; an org id has 15 or 18); delete the file: the next login records its org again`,
    );
  });
});
