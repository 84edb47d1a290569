/**
 * Content-Encoding of a webhook body: none, gzip or deflate (proxies and some senders compress).
 * The size limit applies to the decoded body too, so a small compressed bomb is refused (413)
 * without ever being inflated past the limit. Any other encoding is 415: accepting `br` and then
 * reading it as plain text would answer 400 for a body that was fine, and the platform would retry
 * it for a day.
 */
import zlib from 'node:zlib';

type Decoded = { ok: true; body: Buffer } | { ok: false; status: 400 | 413 | 415; error: string };

const SUPPORTED = new Set(['gzip', 'x-gzip', 'deflate']);

/** The encoding named by the header ('' for none), or an answer refusing it. */
export function encodingOf(header: string | string[] | undefined): { ok: true; encoding: string } | { ok: false; status: 415; error: string } {
  const raw = (Array.isArray(header) ? header.join(',') : (header ?? '')).toLowerCase();
  const codings = raw
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return { ok: true, encoding: '' };
  if (codings.length === 1 && SUPPORTED.has(codings[0] as string)) return { ok: true, encoding: codings[0] as string };
  return { ok: false, status: 415, error: `Content-Encoding ${JSON.stringify(raw.slice(0, 40))} is not supported (gzip, deflate or none)` };
}

function tooLarge(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError;
}

export function decodeBody(encoding: string, body: Buffer, maxBytes: number): Decoded {
  if (encoding === '') return { ok: true, body };
  const options: zlib.ZlibOptions = { maxOutputLength: maxBytes };
  const attempts: Array<() => Buffer> =
    encoding === 'deflate'
      ? // HTTP's "deflate" is the zlib format; some senders send raw deflate under that name.
        [() => zlib.inflateSync(body, options), () => zlib.inflateRawSync(body, options)]
      : [() => zlib.gunzipSync(body, options)];
  for (const attempt of attempts) {
    try {
      return { ok: true, body: attempt() };
    } catch (error) {
      if (tooLarge(error)) return { ok: false, status: 413, error: `decoded body over ${maxBytes} bytes` };
    }
  }
  return { ok: false, status: 400, error: `body is not valid ${encoding === 'deflate' ? 'deflate' : 'gzip'} data` };
}
