// jest's Node environment, with a temporary folder of its own for each test file: TMPDIR points
// into it while the file runs (os.tmpdir() in the test, and in the CLI that fixtures/cli.ts runs),
// and when the file is done a `svc-*` folder or file still in it fails the file, naming what was
// left behind. The suite once left about 85 such folders in the machine's temp folder a run. The
// folder itself is removed either way, so a failing file leaves nothing behind either. It also
// fails a file that leaves the worker something that keeps it alive (openHandles.mjs).
import { TestEnvironment } from 'jest-environment-node';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { heldOpen, liveResources } from './openHandles.mjs';

/** The machine's temp folder, as the worker started: each file's folder goes in it. */
const BASE = os.tmpdir();

export default class TempFolderEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  async setup() {
    await super.setup();
    this.previous = process.env.TMPDIR;
    this.dir = fs.mkdtempSync(path.join(BASE, `jest-${path.basename(this.testPath, '.test.ts')}-`));
    // Readable by others, as the temp folder is: embedded PostgreSQL, run as the postgres user
    // when the suite runs as root, reads the password file it writes here. Nobody else writes.
    fs.chmodSync(this.dir, 0o755);
    this.resourcesBefore = liveResources();
    // The worker's own environment: Node's os.tmpdir() reads it (the test's `process` is a copy).
    process.env.TMPDIR = this.dir;
  }

  async teardown() {
    if (this.previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = this.previous;
    const left = fs.existsSync(this.dir) ? fs.readdirSync(this.dir).filter((name) => name.startsWith('svc-')) : [];
    fs.rmSync(this.dir, { recursive: true, force: true });
    await super.teardown();
    const file = path.relative(process.cwd(), this.testPath);
    const problems = [];
    if (left.length > 0) {
      problems.push(`${file} left ${left.length} temporary folder(s) behind: ${left.sort().join(', ')} (remove what a test makes in afterAll / finally)`);
    }
    const held = await heldOpen(this.resourcesBefore);
    if (held !== undefined) problems.push(`${file} left the worker ${held} (close, stop or reap it in afterAll)`);
    if (problems.length > 0) throw new Error(problems.join('\n'));
  }
}
