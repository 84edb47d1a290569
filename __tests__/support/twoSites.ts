/**
 * A deployment of two sites, north and south, each on its own fixture stack: the config file's
 * connection entries (secrets named by environment variable, never written in the file) and the
 * environment that holds those secrets.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Stack } from '../../fixtures/stack.js';

export const NAMES = ['north', 'south'] as const;
export type Name = (typeof NAMES)[number];

/** The secrets the config file takes from the environment: each site's API key and session. */
export function secretsOf(stacks: Record<Name, Stack>): Record<string, string> {
  return Object.fromEntries(
    NAMES.flatMap((n) => [
      [`${n.toUpperCase()}_KEY`, stacks[n].env.SVC_API_KEY ?? ''],
      [`${n.toUpperCase()}_TOKEN`, stacks[n].env.SF_ACCESS_TOKEN ?? ''],
    ]),
  );
}

/** One connection's settings: its site, its platform, its org; secrets from the environment. */
export function connectionEntry(stack: Stack, name: Name, siteId: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const upper = name.toUpperCase();
  return {
    SVC_SITE_ID: siteId,
    SVC_API_URL: stack.platform.url,
    SVC_API_KEY: { env: `${upper}_KEY` },
    SF_INSTANCE_URL: stack.salesforce.url,
    SF_ACCESS_TOKEN: { env: `${upper}_TOKEN` },
    SF_API_VERSION: stack.salesforce.apiVersion,
    ...extra,
  };
}

/** Writes the config file naming both connections (north site 7, south site 8, each entry overridable) into `cwd`. */
export function writeTwoSites(cwd: string, stacks: Record<Name, Stack>, overrides: Partial<Record<Name, Record<string, unknown>>> = {}): string {
  const connections = { north: connectionEntry(stacks.north, 'north', 7, overrides.north), south: connectionEntry(stacks.south, 'south', 8, overrides.south) };
  fs.writeFileSync(path.join(cwd, 'svc-sync.config.json'), JSON.stringify({ connections }, null, 2), { mode: 0o600 });
  return cwd;
}
