/**
 * Full chunks of a run's outcome log, written where no one else can read them and read back in
 * order: a million outcomes wait on disk, not in memory. The file is made in a fresh owner-only
 * folder (0700) under the system's temp folder and unlinked at once, folder too: its descriptor
 * keeps it, so nothing is left behind, not even by a crash, and no path to it exists for another
 * user to reach. Where a step fails (no temp folder, a full disk, a system that will not unlink an
 * open file), the chunks from there on stay in memory: the log loses nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A log dropped without its file closed (a report nobody holds any more): the descriptor is closed for it. */
const closeOnCollect = new FinalizationRegistry<number>((fd) => {
  try {
    fs.closeSync(fd);
  } catch {
    // Closed already: nothing to free.
  }
});

/** A spilled chunk: the ids (8 bytes each), then the codes (1 byte each). */
export interface Chunk {
  ids: Float64Array;
  codes: Uint8Array;
}

function writeAll(fd: number, bytes: Uint8Array, at: number): void {
  for (let done = 0; done < bytes.byteLength;) done += fs.writeSync(fd, bytes, done, bytes.byteLength - done, at + done);
}

function readAll(fd: number, into: Uint8Array, at: number): void {
  for (let done = 0; done < into.byteLength;) {
    const read = fs.readSync(fd, into, done, into.byteLength - done, at + done);
    if (read === 0) throw new Error(`outcome log: its spill file ended at byte ${at + done}`);
    done += read;
  }
}

/** An unlinked owner-only file, or undefined where one cannot be had. */
function unlinkedFile(): number | undefined {
  let dir: string | undefined;
  let fd: number | undefined;
  try {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sync-outcomes-'));
    const file = path.join(dir, 'log');
    fd = fs.openSync(file, 'wx+', 0o600);
    fs.unlinkSync(file);
    fs.rmdirSync(dir);
    return fd;
  } catch {
    try {
      if (fd !== undefined) fs.closeSync(fd);
      if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // What could not be cleared is an empty owner-only folder in the temp folder.
    }
    return undefined;
  }
}

export class ChunkSpill {
  /** The file's descriptor; undefined before the first chunk, null when none could be made. After a failed write `kept` holds the rest. */
  private fd: number | null | undefined;
  private written = 0;
  /** Chunks kept in memory, after those in the file. */
  private readonly kept: Chunk[] = [];

  constructor(private readonly size: number) {}

  /** Chunks put so far. */
  get count(): number {
    return this.written + this.kept.length;
  }

  /** Takes a full chunk (`size` ids and codes); the caller may reuse its arrays at once. */
  put(chunk: Chunk): void {
    if (this.fd === undefined) {
      this.fd = unlinkedFile() ?? null;
      if (this.fd !== null) closeOnCollect.register(this, this.fd);
    }
    if (this.fd !== null && this.kept.length === 0) {
      const at = this.written * this.size * 9;
      try {
        writeAll(this.fd, new Uint8Array(chunk.ids.buffer, chunk.ids.byteOffset, this.size * 8), at);
        writeAll(this.fd, chunk.codes.subarray(0, this.size), at + this.size * 8);
        this.written++;
        return;
      } catch {
        // A full disk: this chunk and the rest stay in memory (the file keeps what it holds).
      }
    }
    this.kept.push({ ids: chunk.ids.slice(0, this.size), codes: chunk.codes.slice(0, this.size) });
  }

  /** The i-th chunk; one from the file is read into `into` (reused from call to call). */
  get(i: number, into: Chunk): Chunk {
    if (i >= this.written) return this.kept[i - this.written] as Chunk;
    const at = i * this.size * 9;
    readAll(this.fd as number, new Uint8Array(into.ids.buffer, into.ids.byteOffset, this.size * 8), at);
    readAll(this.fd as number, into.codes.subarray(0, this.size), at + this.size * 8);
    return into;
  }
}
