/**
 * Node 22 says node:sqlite is experimental when it is first loaded; the CLI leaves that one
 * warning out of what a user sees (the queue and the run lock load the driver), and prints every
 * other warning as before. On Node 24 and later the driver loads without one.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { packageRoot } from '../../fixtures/cli.js';
import { SqliteQueue } from '../../src/webhook/queue/sqlite.js';
import { tempQueue, type TempDir } from '../webhook/helpers.js';

const BIN = path.join(packageRoot(), 'bin', 'svc-sync.js');
let tmp: TempDir | undefined;
afterEach(() => tmp?.cleanup());

const cli = (args: string[], env: Record<string, string> = {}) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, NODE_OPTIONS: '', ...env } });

describe('the SQLite driver under the CLI', () => {
  it('`queue` opens the file with no ExperimentalWarning on stderr', async () => {
    tmp = tempQueue();
    await new SqliteQueue(tmp.db).close();
    for (const args of [
      ['queue', '--queue', tmp.db],
      ['queue', '--queue', tmp.db, '--json'],
    ]) {
      const r = cli(args);
      expect({ args, status: r.status, stderr: r.stderr }).toEqual({ args, status: 0, stderr: '' });
    }
  });

  it('other warnings are still printed (as one svc-sync line)', () => {
    tmp = tempQueue();
    // A warning raised once the CLI's own printer is in place.
    const r = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `process.argv = [process.argv[0], ${JSON.stringify(BIN)}, '--version']; const { main } = await import(${JSON.stringify(path.join(packageRoot(), 'dist', 'cli.js'))}); await main(process.argv); process.emitWarning('a test warning', 'TestWarning'); await new Promise((r) => setImmediate(r));`,
      ],
      { encoding: 'utf8', timeout: 30_000, env: { ...process.env, NODE_OPTIONS: '' } },
    );
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/svc-sync: TestWarning: a test warning/);
  });
});
