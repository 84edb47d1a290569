/**
 * Issue 37, row 7: two connections whose state folders are one folder through a symlink would
 * share one watermark (the second never writes what the first has passed). They are compared by
 * their real paths, created or not, and the refusal names that cause and its fix.
 */
import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { configErrorOf } from '../support/configError.js';
import { loadDeployment } from '../../src/config/connections.js';
import { tempFolders } from '../support/tempFolders.js';

const made = tempFolders('svc-state-folders-');
const tmp = (): string => fs.realpathSync(made());

function configWith(cwd: string, north: string, south: string): void {
  const entry = (site: number, url: string, dir: string): Record<string, unknown> => ({ SVC_SITE_ID: site, SF_INSTANCE_URL: url, SVC_STATE_DIR: dir });
  fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify({ connections: { north: entry(7, 'https://a.example', north), south: entry(8, 'https://b.example', south) } }));
}

describe('state folders compared by their real paths', () => {
  it('one folder through a symlink: refused at load, naming the symlink and the fix (not an org record)', () => {
    const cwd = tmp();
    const real = path.join(cwd, 'state-north');
    fs.mkdirSync(real);
    // North has run: its org record is in the folder both would use.
    fs.writeFileSync(path.join(real, 'org.json'), JSON.stringify({ orgId: '00D5g000007LinkEAC', instanceUrl: 'https://a.example', recordedAt: '2026-11-26T00:00:00.000Z' }));
    fs.writeFileSync(path.join(real, 'state.json'), '{}');
    fs.symlinkSync(real, path.join(cwd, 'state-south'));
    configWith(cwd, real, path.join(cwd, 'state-south'));
    const e = configErrorOf(() => loadDeployment({ cwd, env: {} }));
    expect(e.message).toBe(
      `connections north and south: both keep their state in ${JSON.stringify(real)} (${JSON.stringify(path.join(cwd, 'state-south'))} is the same folder through a symlink); give each its own SVC_STATE_DIR`,
    );
    expect(e.message).not.toContain('org.json');
    expect(e.actions ?? []).toEqual([]);
  });

  it('folders not created yet under a symlinked parent: the same folder, refused', () => {
    const cwd = tmp();
    fs.mkdirSync(path.join(cwd, 'base'));
    fs.symlinkSync(path.join(cwd, 'base'), path.join(cwd, 'alias'));
    configWith(cwd, path.join(cwd, 'base', 'one'), path.join(cwd, 'alias', 'one'));
    expect(configErrorOf(() => loadDeployment({ cwd, env: {} })).message).toBe(
      `connections north and south: both keep their state in ${JSON.stringify(path.join(cwd, 'base', 'one'))} (${JSON.stringify(path.join(cwd, 'alias', 'one'))} is the same folder through a symlink); give each its own SVC_STATE_DIR`,
    );
    // Two folders of their own under the same symlinked parent are fine.
    configWith(cwd, path.join(cwd, 'base', 'one'), path.join(cwd, 'alias', 'two'));
    expect(loadDeployment({ cwd, env: {} }).connections).toHaveLength(2);
  });
});
