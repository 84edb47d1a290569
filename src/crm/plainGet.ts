/**
 * One GET with Node's own HTTP client, for the session check at start-up: jsforce's core costs
 * more to load than Node's own start, and a run's first platform request waits for that check.
 * Node's client is part of Node (node:http is loaded anyway; node:https only for an https URL).
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface PlainAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Rejects on a network error, on `timeoutMs` without an answer, and with the signal's reason when it is aborted. */
export async function plainGet(url: string, headers: Record<string, string>, opts: { timeoutMs: number; signal?: AbortSignal | undefined }): Promise<PlainAnswer> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    const req = client.get(target, { headers, timeout: opts.timeoutMs, ...(opts.signal ? { signal: opts.signal } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
    req.on('error', (err) => reject(opts.signal?.aborted ? (opts.signal.reason as unknown) : err));
  });
}
