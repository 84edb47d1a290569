/** The one proxy rule and the one redirect rule of every HTTP client (src/model/httpRules.ts). */
import { describe, expect, it } from '@jest/globals';
import { proxyFor, redirectOf, shownProxy } from '../../src/model/httpRules.js';
import { RedirectError } from '../../src/model/errors.js';

const P = 'http://proxy.internal:3128';

describe('proxyFor: HTTPS_PROXY / HTTP_PROXY / NO_PROXY as undici reads them', () => {
  it('an https URL takes HTTPS_PROXY, else HTTP_PROXY; an http URL HTTP_PROXY only', () => {
    expect(proxyFor('https://x.my.salesforce.com/', { HTTPS_PROXY: P })).toBe(P);
    expect(proxyFor('https://x.my.salesforce.com/', { HTTP_PROXY: P })).toBe(P);
    expect(proxyFor('http://api.example/', { HTTPS_PROXY: P })).toBeUndefined();
    expect(proxyFor('http://api.example/', { HTTP_PROXY: P })).toBe(P);
    expect(proxyFor('https://api.example/', {})).toBeUndefined();
  });

  it('lower case first, as curl and undici read them; an empty value is none', () => {
    expect(proxyFor('https://a.example/', { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2' })).toBe('http://lower:1');
    expect(proxyFor('https://a.example/', { HTTPS_PROXY: ' ', HTTP_PROXY: P })).toBe(P);
  });

  it.each([
    ['127.0.0.1,localhost', 'http://127.0.0.1:8080/x', true],
    ['localhost 127.0.0.1', 'http://localhost:1/', true],
    ['*', 'https://login.salesforce.com/', true],
    ['salesforce.com', 'https://acme.my.salesforce.com/', true],
    ['.salesforce.com', 'https://acme.my.salesforce.com/', true],
    ['*.salesforce.com', 'https://acme.my.salesforce.com/', true],
    ['salesforce.com', 'https://notsalesforce.com/', false],
    ['api.example:443', 'https://api.example/', true],
    ['api.example:8443', 'https://api.example/', false],
    ['[::1]', 'http://[::1]:9000/', true],
    ['', 'https://api.example/', false],
  ])('NO_PROXY=%s, %s: bypassed %s', (noProxy, url, bypassed) => {
    expect(proxyFor(url, { HTTPS_PROXY: P, HTTP_PROXY: P, NO_PROXY: noProxy })).toBe(bypassed ? undefined : P);
    expect(proxyFor(url, { https_proxy: P, http_proxy: P, no_proxy: noProxy })).toBe(bypassed ? undefined : P);
  });

  it('shows a proxy without its credentials', () => {
    expect(shownProxy('http://user:s3cret@proxy.internal:3128/')).toBe('http://proxy.internal:3128');
  });
});

describe('redirectOf: no redirect is followed', () => {
  it('a 3xx is an error naming both origins, never a path or credentials', () => {
    const err = redirectOf('GET', 'https://acme.my.salesforce.com/services/data/v62.0/limits', 302, 'https://u:p@evil.example/steal?token=x');
    expect(err).toBeInstanceOf(RedirectError);
    expect(err?.message).toBe(
      'GET https://acme.my.salesforce.com answered 302, a redirect to https://evil.example: not followed, no credential is sent on (check the URL setting and any proxy in between)',
    );
  });

  it('a relative location is on the same origin, said so; other statuses are not redirects', () => {
    expect(redirectOf('POST', 'http://127.0.0.1:5/a', 307, '/b')?.message).toContain('a redirect to http://127.0.0.1:5:');
    expect(redirectOf('GET', 'http://h/', 304, undefined)).toBeUndefined();
    expect(redirectOf('GET', 'http://h/', 200, 'http://x/')).toBeUndefined();
  });
});
