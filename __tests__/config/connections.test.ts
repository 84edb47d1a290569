import { describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { configErrorOf } from '../support/configError.js';
import { chooseConnections, everySettingGroup, loadDeployment } from '../../src/config/connections.js';
import { tempFolders } from '../support/tempFolders.js';

const tmp = tempFolders('svc-connections-');

/** A config file in a fresh folder; its path. */
function configIn(data: unknown): string {
  const cwd = tmp();
  fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify(data));
  return cwd;
}

const messageOf = (fn: () => unknown): string => configErrorOf(fn).message;

const TWO = {
  SVC_API_URL: 'http://127.0.0.1:1',
  SF_API_VERSION: '61.0',
  connections: {
    north: { SVC_SITE_ID: 7, SVC_API_KEY: { env: 'NORTH_KEY' }, SF_INSTANCE_URL: 'http://127.0.0.1:2', SF_ACCESS_TOKEN: 'tok-north' },
    south: { SVC_SITE_ID: '8', SVC_API_URL: 'http://127.0.0.1:3', SVC_API_KEY: 'key-south', SF_INSTANCE_URL: 'http://127.0.0.1:4', SF_ACCESS_TOKEN: 'tok-south' },
  },
};

describe('connections in the config file', () => {
  it('without "connections": one implicit connection with today\'s settings and .svc-sync', () => {
    const cwd = configIn({ SVC_API_URL: 'http://file', SVC_SITE_ID: 5 });
    const d = loadDeployment({ cwd, env: { SVC_API_KEY: 'k' } });
    expect(d.named).toBe(false);
    expect(d.connections).toEqual([expect.objectContaining({ name: undefined, stateDir: '.svc-sync' })]);
    expect(d.connections[0]!.raw).toEqual(d.top);
    expect(d.connections[0]!.raw).toMatchObject({ SVC_API_URL: 'http://file', SVC_SITE_ID: '5', SVC_API_KEY: 'k' });
    expect(chooseConnections(d, 'each')).toHaveLength(1);
    expect(chooseConnections(d, 'one')).toHaveLength(1);
  });

  it("each connection's own value wins over the environment and the top level; flags win over all", () => {
    const cwd = configIn(TWO);
    const d = loadDeployment({ cwd, env: { NORTH_KEY: 'key-north', SVC_API_KEY: 'key-env', SF_API_VERSION: '60.0' }, flags: { SVC_CONCURRENCY: '2' } });
    const [north, south] = d.connections;
    expect(d.named).toBe(true);
    expect(north).toMatchObject({ name: 'north', stateDir: path.join('.svc-sync', 'north') });
    expect(north!.raw).toMatchObject({ SVC_SITE_ID: '7', SVC_API_KEY: 'key-north', SVC_API_URL: 'http://127.0.0.1:1', SF_API_VERSION: '60.0', SVC_CONCURRENCY: '2' });
    expect(south!.raw).toMatchObject({ SVC_SITE_ID: '8', SVC_API_KEY: 'key-south', SVC_API_URL: 'http://127.0.0.1:3' });
    expect(north!.sources.SVC_API_KEY?.from).toBe('connection');
    expect(north!.sources.SVC_CONCURRENCY?.from).toBe('flag');
    expect(north!.sources.SF_API_VERSION?.from).toBe('environment');
  });

  it("SVC_STATE_DIR: the top level moves every connection's folder, a connection's own wins", () => {
    const cwd = configIn({ ...TWO, SVC_STATE_DIR: '/srv/state', connections: { ...TWO.connections, south: { ...TWO.connections.south, SVC_STATE_DIR: '/elsewhere' } } });
    const d = loadDeployment({ cwd, env: { NORTH_KEY: 'k' } });
    expect(d.connections.map((c) => c.stateDir)).toEqual([path.join('/srv/state', 'north'), '/elsewhere']);
  });

  it('refuses what would make two connections collide, naming both', () => {
    const env = { NORTH_KEY: 'k' };
    const sameSite = { ...TWO, connections: { ...TWO.connections, south: { ...TWO.connections.south, SVC_SITE_ID: 7 } } };
    expect(messageOf(() => loadDeployment({ cwd: configIn(sameSite), env }))).toBe('connections north and south: both have site 7; a webhook of that site could go to either');
    const sameOrg = { ...TWO, connections: { ...TWO.connections, south: { ...TWO.connections.south, SF_INSTANCE_URL: 'HTTP://127.0.0.1:2/' } } };
    expect(messageOf(() => loadDeployment({ cwd: configIn(sameOrg), env }))).toBe(
      'connections north and south both write the org at "http://127.0.0.1:2"; set SVC_SITE_KEYS=true on both (north and south lack it)',
    );
    const sameState = { ...TWO, connections: { ...TWO.connections, south: { ...TWO.connections.south, SVC_STATE_DIR: '.svc-sync/north' } } };
    expect(messageOf(() => loadDeployment({ cwd: configIn(sameState), env }))).toMatch(/^connections north and south: both keep their state in /);
  });

  it('refuses a bad name, a missing site, a deployment-wide setting, an unset variable', () => {
    const env = { NORTH_KEY: 'k' };
    expect(messageOf(() => loadDeployment({ cwd: configIn({ connections: { North: { SVC_SITE_ID: 1 } } }), env }))).toMatch(/connections: name "North" must be a short lowercase word/);
    expect(messageOf(() => loadDeployment({ cwd: configIn({ connections: { north: { SVC_API_KEY: 'k' } } }), env }))).toMatch(/connections\.north: SVC_SITE_ID is not set/);
    expect(messageOf(() => loadDeployment({ cwd: configIn({ connections: { north: { SVC_SITE_ID: 1, SVC_QUEUE_PATH: 'q.db' } } }), env }))).toMatch(
      /connections\.north: SVC_QUEUE_PATH is one for the whole deployment; set it at the top level/,
    );
    expect(messageOf(() => loadDeployment({ cwd: configIn({ connections: { north: { SVC_SITE_ID: 1, SVC_API_KEY: { env: 'NOPE' } } } }), env }))).toMatch(
      /connections\.north: SVC_API_KEY is taken from the environment variable NOPE, which is not set/,
    );
    expect(messageOf(() => loadDeployment({ cwd: configIn({ connections: { north: { SVC_SITE_ID: 1, SVC_APIKEY: 'x' } } }), env }))).toMatch(
      /unknown setting "SVC_APIKEY" \(did you mean SVC_API_KEY\?\)/,
    );
    expect(messageOf(() => loadDeployment({ cwd: configIn({ connections: {} }), env }))).toMatch(/connections: is empty/);
    expect(messageOf(() => loadDeployment({ cwd: configIn({ connections: [] }), env }))).toMatch(/connections: must be an object of named connections/);
  });

  it('chooses: the named one; every one or refuses to guess among several', () => {
    const cwd = configIn(TWO);
    const env = { NORTH_KEY: 'k' };
    const all = loadDeployment({ cwd, env });
    expect(chooseConnections(all, 'each').map((c) => c.name)).toEqual(['north', 'south']);
    expect(messageOf(() => chooseConnections(all, 'one'))).toBe('2 connections (north, south): this command acts on one; choose it with --connection NAME');
    expect(chooseConnections(loadDeployment({ cwd, env: { ...env, SVC_CONNECTION: 'south' } }), 'one').map((c) => c.name)).toEqual(['south']);
    expect(chooseConnections(loadDeployment({ cwd, env, flags: { SVC_CONNECTION: 'north' } }), 'each').map((c) => c.name)).toEqual(['north']);
    expect(messageOf(() => chooseConnections(loadDeployment({ cwd, env, flags: { SVC_CONNECTION: 'east' } }), 'one'))).toBe(
      '--connection "east": no such connection (the config file has north, south)',
    );
    expect(messageOf(() => chooseConnections(loadDeployment({ cwd: configIn({ SVC_SITE_ID: 1 }), env, flags: { SVC_CONNECTION: 'north' } }), 'one'))).toMatch(/the config file has no "connections"/);
  });

  it('every group of settings, for masking: the secrets of each connection', () => {
    const groups = everySettingGroup({ cwd: configIn(TWO), env: { NORTH_KEY: 'key-north' } });
    expect(groups.map((g) => g.SF_ACCESS_TOKEN)).toEqual([undefined, 'tok-north', 'tok-south']);
    expect(groups[1]!.SVC_API_KEY).toBe('key-north');
  });
});
