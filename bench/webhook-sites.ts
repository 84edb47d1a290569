/**
 * Two sites, one `serve` or two (issue 31): the same mixed burst of webhooks for two sites (the
 * same record ids on both), delivered to
 *   A. one `svc-sync serve` with a config of two connections (one port, one queue), and
 *   B. two `svc-sync serve` processes, one per site (two ports, two queues),
 * each against two fake platforms and two Salesforce emulators (two orgs), both orgs mirrored by
 * `sync --all` first (the steady state a burst meets) and the burst's records changed on their
 * platform just before it. Prints, per mode: platform requests per site, Salesforce calls per org,
 * wall time from the first POST to an empty queue, and the peak memory (VmHWM) of each process.
 * Figures are printed, never asserted.
 *
 *   npm run build && node dist/bench/webhook-sites.js [eventsPerSite=600] [siteDonations=1500] [concurrency=16]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { BIN, READ_WHOLE, runCli } from '../fixtures/cli.js';
import { prng } from '../fixtures/platform/site.js';
import { startStack, type Stack } from '../fixtures/stack.js';
import { listeningBase, postJson } from './live.js';

const [eventsPerSite = 600, siteDonations = 1500, concurrency = 16] = process.argv.slice(2).map(Number);

interface Site {
  name: 'north' | 'south';
  siteId: number;
  stack: Stack;
  hook: string;
}

/** A connection's settings as the config file holds them. */
function settingsOf(s: Site): Record<string, string> {
  return { ...s.stack.env, SVC_SITE_ID: String(s.siteId), SVC_WEBHOOK_SECRET: s.hook };
}

interface Proc {
  child: ChildProcess;
  url: string;
  lines: string[];
}

/** `svc-sync serve` in `dir` (its config file there), on a free port. */
async function startServe(dir: string): Promise<Proc> {
  const child = spawn(process.execPath, [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--settle', '1'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir, ...READ_WHOLE },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  const url = await listeningBase(child, lines, exited);
  return { child, url, lines };
}

async function stopServe(p: Proc): Promise<void> {
  const closed = new Promise<void>((resolve) => p.child.once('close', () => resolve()));
  p.child.kill('SIGTERM');
  await closed;
}

/** Peak resident memory of a live process (Linux), in MB. */
function peakRssMb(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

function getJson(url: string): Promise<{ queue: { pending: number; processing: number; failed: number; done: number; skipped: number } }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve(JSON.parse(body) as { queue: { pending: number; processing: number; failed: number; done: number; skipped: number } }));
      })
      .on('error', reject);
  });
}

/** Until every serve's queue holds no open event. */
async function drained(urls: string[], expected: number): Promise<void> {
  for (;;) {
    const all = await Promise.all(urls.map((u) => getJson(`${u}/healthz`)));
    const open = all.reduce((n, h) => n + h.queue.pending + h.queue.processing + h.queue.failed, 0);
    const done = all.reduce((n, h) => n + h.queue.done + h.queue.skipped, 0);
    if (open === 0 && done >= expected) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The burst: `eventsPerSite` donations.update per site over changed donations, interleaved north, south, north ... */
function burst(sites: Site[], round: number): Array<{ site: Site; body: string }> {
  const rnd = prng(7_000 + round);
  const per = sites.map((s) => {
    const ids = s.stack.platform.site.donation.filter((d) => d.payment_status === 'paid').map((d) => d.id);
    return Array.from({ length: eventsPerSite }, () => {
      const id = ids[Math.floor(rnd() * ids.length)] as number;
      s.stack.platform.update('donation', id, { message: `round ${round} ${s.name}` });
      return { site: s, body: JSON.stringify({ object_type: 'Donation', object_id: id, event_type: 'donations.update', application: 'Kentaa', site_id: s.siteId }) };
    });
  });
  const out: Array<{ site: Site; body: string }> = [];
  for (let i = 0; i < eventsPerSite; i++) for (const list of per) out.push(list[i] as { site: Site; body: string });
  return out;
}

async function deliver(events: Array<{ site: Site; body: string }>, urlOf: (s: Site) => string): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < events.length) {
      const e = events[next++] as { site: Site; body: string };
      const status = await postJson(agent, urlOf(e.site), e.body);
      if (status !== 200) throw new Error(`webhook answered ${status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => lane()));
  agent.destroy();
}

interface Figures {
  mode: string;
  seconds: number;
  platform: Record<string, number>;
  salesforce: Record<string, number>;
  rssMb: number[];
}

async function run(mode: 'one serve' | 'two serves', sites: Site[], round: number): Promise<Figures> {
  const root = mkdtempSync(path.join(os.tmpdir(), `svc-sync-sites-${round}-`));
  const procs: Proc[] = [];
  try {
    if (mode === 'one serve') {
      writeFileSync(path.join(root, 'svc-sync.config.json'), JSON.stringify({ connections: Object.fromEntries(sites.map((s) => [s.name, settingsOf(s)])) }));
      procs.push(await startServe(root));
    } else {
      for (const s of sites) {
        const dir = path.join(root, s.name);
        mkdirSync(dir);
        writeFileSync(path.join(dir, 'svc-sync.config.json'), JSON.stringify(settingsOf(s)));
        procs.push(await startServe(dir));
      }
    }
    const events = burst(sites, round);
    const before = sites.map((s) => ({ p: s.stack.platform.requests.total, sf: s.stack.salesforce.calls().total }));
    const started = performance.now();
    await deliver(events, (s) => (mode === 'one serve' ? `${procs[0]?.url}/webhooks/${s.name}/${s.hook}` : `${procs[sites.indexOf(s)]?.url}/webhooks/${s.hook}`));
    await drained(
      procs.map((p) => p.url),
      events.length,
    );
    const seconds = (performance.now() - started) / 1000;
    const rssMb = procs.map((p) => peakRssMb(p.child.pid));
    return {
      mode,
      seconds,
      platform: Object.fromEntries(sites.map((s, i) => [s.name, s.stack.platform.requests.total - (before[i]?.p ?? 0)])),
      salesforce: Object.fromEntries(sites.map((s, i) => [s.name, s.stack.salesforce.calls().total - (before[i]?.sf ?? 0)])),
      rssMb,
    };
  } finally {
    for (const p of procs) await stopServe(p);
    rmSync(root, { recursive: true, force: true });
  }
}

async function mirror(s: Site): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-sites-mirror-'));
  const res = await runCli(['--quiet', 'sync', '--all'], { env: settingsOf(s), cwd: dir });
  rmSync(dir, { recursive: true, force: true });
  if (res.code !== 0) throw new Error(`sync --all of ${s.name} exited ${res.code}: ${res.stderr.trim().split('\n').slice(-2).join(' | ')}`);
}

async function main(): Promise<void> {
  const shape = { segments: 2, projectsPerSegment: 4, teamsPerProject: 2, companiesPerProject: 1, actionsPerParent: 2, donations: siteDonations, newsletterSubscriptions: 20 };
  const sites: Site[] = [
    { name: 'north', siteId: 6, hook: 'north-bench-hook', stack: await startStack({ site: { ...shape, seed: 11, siteId: 6 }, salesforce: { orgId: '00D5g000000NorthAA' } }) },
    { name: 'south', siteId: 7, hook: 'south-bench-hook', stack: await startStack({ site: { ...shape, seed: 22, siteId: 7 }, salesforce: { orgId: '00D5g000000SouthAA' } }) },
  ];
  try {
    for (const s of sites) await mirror(s);
    console.log(`webhook-sites: ${eventsPerSite} donations.update per site (2 sites, the same ids, ${siteDonations} donations each), ${concurrency} deliveries at once`);
    const figures: Figures[] = [];
    // Each mode twice, alternating, so neither is favoured by a warmer machine.
    let round = 0;
    for (let i = 0; i < 2; i++) for (const mode of ['one serve', 'two serves'] as const) figures.push(await run(mode, sites, ++round));
    for (const f of figures) {
      const rss = f.rssMb.length === 1 ? `${f.rssMb[0]} MB` : `${f.rssMb.join(' + ')} = ${f.rssMb.reduce((a, b) => a + b, 0)} MB`;
      console.log(
        `  ${f.mode.padEnd(10)}  ${f.seconds.toFixed(1).padStart(5)} s  platform requests north ${f.platform.north} south ${f.platform.south}  ` +
          `Salesforce calls north ${f.salesforce.north} south ${f.salesforce.south}  peak RSS ${rss}`,
      );
    }
  } finally {
    for (const s of sites) await s.stack.close();
  }
}

await main();
