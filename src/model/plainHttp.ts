/**
 * One request with Node's own HTTP client: the OAuth token call and the session check (jsforce's
 * core costs more to load than Node's own start, and so does fetch's client, undici, on its first
 * call), the first platform request, sent while got loads, and every request of jsforce's
 * connection (its transport is this function: connection.ts). The proxy and redirect rules of
 * httpRules.ts apply; node:https is loaded only for an https URL.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { agentFor, answerTooLarge, certificateErrorOf, redirectOf } from './httpRules.js';

export interface PlainAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

interface PlainRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer | undefined;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** The most the answer may hold (httpRules.ts ANSWER_LIMIT_BYTES): past it, AnswerTooLargeError. */
  maxBytes: number;
}

/**
 * Rejects on a network error, on `timeoutMs` without the whole answer, on a redirect (a
 * RedirectError naming both hosts: never followed), on an answer over `maxBytes` (announced or
 * received: nothing more is read), on a certificate not trusted (CertificateError), and with the
 * signal's reason when it is aborted. No Accept-Encoding is sent and nothing is decompressed.
 */
export async function plainRequest(url: string, r: PlainRequest): Promise<PlainAnswer> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const headers = r.body === undefined ? r.headers : { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) };
  const agent = agentFor(url, r.timeoutMs);
  if (r.signal?.aborted) throw r.signal.reason;
  return new Promise((resolve, reject) => {
    const req = client.request(target, { method: r.method, headers, ...(agent ? { agent } : {}), ...(r.signal ? { signal: r.signal } : {}) }, (res) => {
      const redirect = redirectOf(r.method, url, res.statusCode ?? 0, res.headers.location);
      if (redirect !== undefined) {
        clearTimeout(timer);
        req.destroy();
        reject(redirect);
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      const over = (): void => {
        clearTimeout(timer);
        req.destroy();
        reject(answerTooLarge(url, r.maxBytes));
      };
      if (Number(res.headers['content-length'] ?? 0) > r.maxBytes) return over();
      res.on('data', (c: Buffer) => {
        received += c.length;
        if (received > r.maxBytes) return over();
        chunks.push(c);
      });
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(r.signal?.aborted ? (r.signal.reason as unknown) : err);
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
      reject(r.signal?.aborted ? (r.signal.reason as unknown) : (certificateErrorOf(url, err) ?? err));
    });
    req.end(r.body);
  });
}
