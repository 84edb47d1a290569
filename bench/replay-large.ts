/**
 * `replay` of a large file of ids, most of which do not exist on the platform: the shape an
 * operator produces by replaying an old export or a log of webhooks of a site since cleaned up.
 * The CLI runs as a child process under /usr/bin/time, so its peak RSS is its own; the fake
 * platform and the Salesforce emulator run here and count the requests they serve. The fake's
 * rate limit is off: the figures are requests and memory, not sleeping. Printed, never asserted.
 *
 *   npm run build && node dist/bench/replay-large.js [lines=5000,1000000] [timeoutSeconds=300] [bin]
 *
 * `bin` runs another build of the CLI (an older checkout's bin/svc-sync.js) against the same data.
 *
 * Each file lists every 40th donation of a 5,000-donation site (125 real ids) among distinct ids
 * that do not exist, in a shuffled order. The naive figure is one by-id request per line (what a
 * replay costs without a scan: every id asked for, found or not).
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { BIN } from '../fixtures/cli.js';
import { ID_BASE } from '../fixtures/platform/site.js';
import { startStack } from '../fixtures/stack.js';

const DONATIONS = 5_000;

interface Figures {
  code: number | null;
  maxRssMb: number;
  wallS: number;
  timedOut: boolean;
}

function runReplay(bin: string, json: boolean, file: string, env: Record<string, string>, cwd: string, timeoutS: number): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    // GNU time prints "maxRSS-kB" on stderr's last line; the CLI's own output is discarded.
    const child = spawn('/usr/bin/time', ['-f', 'MAXRSS %M', process.execPath, bin, ...(json ? ['--json'] : []), 'replay', '--file', file], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
      // Its own process group, so a timeout ends the CLI too, not only /usr/bin/time.
      detached: true,
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4096);
    });
    let timedOut = false;
    // Sampled from /proc while it runs, for the case where it is killed before it reports.
    let peakKb = 0;
    const sampler = setInterval(() => {
      try {
        for (const pid of readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) {
          const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
          if (hwm !== undefined) peakKb = Math.max(peakKb, Number(hwm));
        }
      } catch {
        // The process has ended between two samples.
      }
    }, 500);
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutS * 1000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      clearInterval(sampler);
      // Killed: GNU time is gone too, so the peak is what /proc showed last.
      const kb = Number(/MAXRSS (\d+)/.exec(stderr)?.[1] ?? peakKb);
      resolve({ code, maxRssMb: Math.round(kb / 1024), wallS: Math.round((Date.now() - started) / 100) / 10, timedOut });
    });
  });
}

async function writeFile(file: string, lines: number, real: number[]): Promise<number> {
  const out = createWriteStream(file);
  out.write('object_type,object_id\n');
  // Real ids spread evenly through the file; the rest are distinct ids past the site's last one.
  const every = Math.max(1, Math.floor(lines / real.length));
  let realUsed = 0;
  let fake = ID_BASE.donation + 10_000_000;
  for (let i = 0; i < lines; i++) {
    const id = i % every === 0 && realUsed < real.length ? real[realUsed++] : fake++;
    if (!out.write(`donation,${id}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return realUsed;
}

async function main(): Promise<void> {
  const sizes = (process.argv[2] ?? '5000,1000000').split(',').map(Number);
  const timeoutS = Number(process.argv[3] ?? 300);
  const bin = process.argv[4] ?? BIN;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-replay-bench-'));
  const stack = await startStack({ site: { donations: DONATIONS, newsletterSubscriptions: 0 } });
  try {
    const real = stack.platform.site.donation.filter((_, i) => i % 40 === 0).map((d) => d.id);
    console.log(`CLI: ${bin === BIN ? 'this checkout' : bin}`);
    console.log(`replay of donation ids against a ${DONATIONS}-donation site (${stack.platform.site.donation.length} listed), ${real.length} real ids per file`);
    console.log('lines      output  real  platform requests (by id + list)  naive requests  peak RSS  wall     exit');
    for (const lines of sizes) {
      const file = path.join(dir, `ids-${lines}.csv`);
      const used = await writeFile(file, lines, real);
      for (const json of [false, true]) {
        stack.platform.resetCounts();
        const f = await runReplay(bin, json, file, stack.env, dir, timeoutS);
        const r = stack.platform.requests;
        console.log(
          `${String(lines).padEnd(10)} ${(json ? '--json' : 'human').padEnd(7)} ${String(used).padEnd(5)} ${`${r.total} (${r.byIdTotal} + ${r.listTotal})`.padEnd(33)} ${String(lines).padEnd(15)} ${`${f.maxRssMb} MB`.padEnd(9)} ${`${f.wallS} s`.padEnd(8)} ${f.timedOut ? `killed at ${timeoutS} s` : String(f.code)}`,
        );
      }
    }
  } finally {
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
