/** Shared pieces of the webhook tests: temp queue files, HTTP posting, a recording processor. */
import { rmSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { ObjectRef } from '../../src/model/objects.js';
import type { BatchProcessor, ProcessOutcome, ProcessResult } from '../../src/webhook/worker/worker.js';
import { classifyEvent } from '../../src/sync/input/webhookEvents.js';
import type { WebhookMessage } from '../../src/sync/input/webhookMessage.js';
import type { EnqueueInput } from '../../src/webhook/queue/store.js';
import { WAIT_MS } from '../support/patience.js';
import { tempFolders } from '../support/tempFolders.js';

/** Every queue folder a file makes is removed after its last test, cleaned up or not. */
const queueFolder = tempFolders('svc-sync-webhook-');

/** An event as the receiver hands it to a queue: the message, its classification and the raw body. */
export function eventInput(objectType: string, objectId: number, eventType: string): EnqueueInput {
  const message: WebhookMessage = { objectType, objectId, eventType, application: 'Kentaa' };
  return { message, intent: classifyEvent(message), raw: JSON.stringify(message) };
}

export interface TempDir {
  dir: string;
  db: string;
  cleanup(): void;
}

export function tempQueue(): TempDir {
  const dir = queueFolder();
  return { dir, db: path.join(dir, 'queue.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A request over node:http, so bodies, lengths and chunking are exactly what the test says. */
export function request(url: string, opts: { method?: string; headers?: Record<string, string | number>; body?: string | Buffer; chunks?: Buffer[]; agent?: http.Agent } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(url, { method: opts.method ?? 'POST', headers: opts.headers ?? {}, agent: opts.agent ?? false }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    // The server may answer (413, 401) and close before the whole body is written: that is fine.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (opts.chunks) {
      for (const c of opts.chunks) req.write(c);
      req.end();
    } else {
      req.end(opts.body);
    }
  });
}

export function postJson(url: string, body: object, headers: Record<string, string> = {}, agent?: http.Agent): Promise<Reply> {
  const text = JSON.stringify(body);
  return request(url, { headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers }, body: text, ...(agent ? { agent } : {}) });
}

export function postForm(url: string, fields: Record<string, string | number>, headers: Record<string, string> = {}): Promise<Reply> {
  const text = new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return request(url, { headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8', 'Content-Length': Buffer.byteLength(text), ...headers }, body: text });
}

export function donationEvent(id: number, eventType = 'donations.update'): Record<string, string | number> {
  return { object_type: 'Donation', object_id: id, event_type: eventType, application: 'Kentaa', site_id: 7 };
}

/** Runs `tasks` with at most `limit` in flight. */
export async function pool<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await (tasks[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
  return results;
}

/** Polls until `check` returns true; fails (not times) when it never does. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, limitMs = WAIT_MS): Promise<void> {
  const until = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const refKey = (r: ObjectRef): string => `${r.type}:${r.id}`;

/** Records every call; outcomes come from `decide` (done by default). */
export class RecordingProcessor implements BatchProcessor {
  readonly calls: ObjectRef[][] = [];
  constructor(
    private readonly decide: (ref: ObjectRef, call: number) => ProcessOutcome | undefined = (ref) => ({ ref, status: 'done' }),
    private readonly owners: ProcessResult['owners'] = [],
  ) {}

  async process(refs: ObjectRef[]): Promise<ProcessResult> {
    this.calls.push(refs);
    const call = this.calls.length;
    const outcomes = refs.map((r) => this.decide(r, call)).filter((o): o is ProcessOutcome => o !== undefined);
    return { outcomes, owners: this.owners };
  }

  /** How many times each ref was handed over, over all calls. */
  seen(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const call of this.calls) for (const r of call) counts.set(refKey(r), (counts.get(refKey(r)) ?? 0) + 1);
    return counts;
  }
}
