/**
 * One request with Node's own HTTP client, for what a run sends before its heavy clients have
 * loaded: the OAuth token call and the session check (jsforce's core costs more to load than
 * Node's own start, and so does fetch's client, undici, on its first call), and the first platform
 * request, sent while got loads. node:http is loaded anyway (node:https only for an https URL).
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface PlainAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

interface PlainRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** Rejects on a network error, on `timeoutMs` without an answer, and with the signal's reason when it is aborted. */
export async function plainRequest(url: string, r: PlainRequest): Promise<PlainAnswer> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const headers = r.body === undefined ? r.headers : { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) };
  return new Promise((resolve, reject) => {
    const req = client.request(target, { method: r.method, headers, ...(r.signal ? { signal: r.signal } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    // The whole exchange, as got's request timeout counts it (a body that trickles in counts too);
    // ETIMEDOUT, as Node and got name a timeout, so callers classify it so.
    const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no answer within ${Math.round(r.timeoutMs / 1000)} s`), { code: 'ETIMEDOUT' })), r.timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(r.signal?.aborted ? (r.signal.reason as unknown) : err);
    });
    req.end(r.body);
  });
}
