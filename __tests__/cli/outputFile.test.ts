/** --report FILE in a run over several connections: each writes its own file, the name before the extension. */
import { describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { outputFileOf } from '../../src/cli/runner.js';

const north = { name: 'north', raw: {}, sources: {}, stateDir: '.svc-sync/north' };

describe('outputFileOf', () => {
  it('inserts the connection before the extension, or after a name without one', () => {
    const several = { several: true, connection: north };
    expect(outputFileOf(several, 'report.csv')).toBe('report.north.csv');
    expect(outputFileOf(several, path.join('out', 'run.2026.csv'))).toBe(path.join('out', 'run.2026.north.csv'));
    expect(outputFileOf(several, 'report')).toBe('report.north');
    expect(outputFileOf(several, '.report')).toBe('.report.north');
  });

  it('leaves the path as given for one connection: the only one, or the one chosen', () => {
    expect(outputFileOf({ several: false, connection: north }, 'report.csv')).toBe('report.csv');
    expect(outputFileOf({ several: true, connection: { ...north, name: undefined } }, 'report.csv')).toBe('report.csv');
  });
});
