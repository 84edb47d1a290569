/**
 * Issue 50: README's "Several sites" config file, copied literally, mirrors two sites run as two
 * local stacks (two platforms, two orgs). The reader's choices are the URLs of their platform and
 * orgs (here each stack's) and the secrets in the environment; every other byte is README's.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot, runCli } from '../../fixtures/cli.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { expectFullMirror, removeDir, tempCwd } from './helpers.js';
import { NAMES, secretsOf, type Name } from '../support/twoSites.js';

/** The one json block of README's "## Several sites", as written. */
function readmeConfig(): string {
  const readme = fs.readFileSync(path.join(packageRoot(), 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Several sites\n'));
  const block = /\n```json\n([\s\S]*?)\n```\n/.exec(section)?.[1];
  if (block === undefined) throw new Error("README's Several sites section has no json block");
  return block;
}

const stacks = {} as Record<Name, Stack>;
let dir: string;

beforeAll(async () => {
  stacks.north = await startStack({ site: { seed: 57, siteId: 7, segments: 1, projectsPerSegment: 1, donations: 8, newsletterSubscriptions: 1 } });
  stacks.south = await startStack({ site: { seed: 58, siteId: 8, segments: 1, projectsPerSegment: 1, donations: 5, newsletterSubscriptions: 1 } });
  dir = tempCwd('readme-sites');
});
afterAll(async () => {
  await Promise.all(NAMES.map((n) => stacks[n]?.close()));
  removeDir(dir);
});

it("README's two connections, each on its own platform and org: sync --all mirrors both, exit 0", async () => {
  const text = readmeConfig();
  const config = JSON.parse(text) as { connections: Record<string, Record<string, unknown>> };
  expect(Object.keys(config.connections)).toEqual([...NAMES]);
  // Each connection's own URLs point at its stack: the text is edited there and nowhere else.
  let ours = text;
  for (const n of NAMES) {
    const entry = config.connections[n]!;
    const line = text.split('\n').find((l) => l.includes(`"${n}": {`))!;
    const edited = line.replace(String(entry.SVC_API_URL), stacks[n].platform.url).replace(String(entry.SF_INSTANCE_URL), stacks[n].salesforce.url);
    ours = ours.replace(line, edited);
  }
  fs.writeFileSync(path.join(dir, 'svc-sync.config.json'), ours, { mode: 0o600 });

  const res = await runCli(['--json', 'sync', '--all'], { env: secretsOf(stacks), cwd: dir });
  const doc = JSON.parse(res.stdout) as { status: number; result: { connections: Array<{ connection: string; status: number }> } };
  expect({ code: res.code, connections: doc.result.connections.map((c) => [c.connection, c.status]) }).toEqual({
    code: 0,
    connections: [
      ['north', 0],
      ['south', 0],
    ],
  });
  for (const n of NAMES) expectFullMirror(stacks[n], stacks[n].platform.site);
});
