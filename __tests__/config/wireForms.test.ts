/**
 * The masker and the cut (issue 37 rows 11 and 13): a secret in the forms it takes on the wire is
 * masked; a cut never leaves part of a long word; outside text stays on one line.
 */
import { describe, expect, it } from '@jest/globals';
import { redact } from '../../src/config/load.js';
import { oneLine } from '../../src/config/echo.js';
import { cutWhole, escapeControls } from '../../src/model/lineSafe.js';

const KEY = 'key-5e3c0b9d1a2f4e6c8b0a1d3f';
const raw = { SVC_API_KEY: KEY, SVC_API_URL: 'http://proxy-user:Pa%2Fss%20word@platform.example/' };
const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('wire forms of a secret', () => {
  it.each([
    ['the Basic header of the URL credentials', `Authorization: Basic ${b64('proxy-user:Pa/ss word')}`, 'Authorization: Basic <SVC_API_URL credentials>'],
    ['the key as a Basic user name', `Basic ${b64(`${KEY}:`)}`, 'Basic <SVC_API_KEY>'],
    ['the key in base64, unpadded', `k=${b64(KEY).replace(/=+$/, '')}.`, 'k=<SVC_API_KEY>.'],
    ['a bearer token no setting holds (an OAuth session)', 'Authorization: Bearer 00Dxx0000001gPL!AQ4AQ.x9', 'Authorization: Bearer <credentials>'],
    ['the key URL-encoded', `k=${encodeURIComponent(`${KEY}/x`)}`, 'k=<SVC_API_KEY>%2Fx'],
  ])('%s is masked', (_what, text, masked) => {
    expect(redact(text, raw)).toBe(masked);
  });

  it('prose and short values are left alone', () => {
    for (const prose of ['Basic authentication failed; Bearer tokens expire', 'needs Basic authentication.', 'a Bearer token-based login']) expect(redact(prose, raw)).toBe(prose);
    // A value too short to be masked has no masked base64 either (b64("wrong:") is 8 characters).
    expect(redact(`x ${b64('wrong:')} y`, { SVC_API_KEY: 'wrong' })).toBe(`x ${b64('wrong:')} y`);
  });
});

describe('a cut keeps no part of a long word', () => {
  it('a key that straddles the cut is left out whole; short words are cut as before', () => {
    const text = `${'a'.repeat(10)} ${KEY} tail`;
    expect(cutWhole(text, 20)).toBe(`${'a'.repeat(10)} …`);
    expect(cutWhole('abc defg hij', 6)).toBe('abc de…');
    expect(cutWhole('short', 10)).toBe('short');
    expect(oneLine(`${'x '.repeat(145)}key=${KEY}`, 300)).not.toContain(KEY.slice(0, 8));
  });
});

describe('outside text on one line', () => {
  it('line breaks as \\n and \\r, a tab as a space, other controls as \\uXXXX', () => {
    expect(escapeControls('on hold\nexit 0\r\nx\ty\u001b[2K\u2028')).toBe('on hold\\nexit 0\\r\\nx y\\u001b[2K\\u2028');
    expect(oneLine('a\nb')).toBe('a\\nb');
  });
});
