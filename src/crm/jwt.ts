/** JWT bearer assertion for Salesforce's OAuth JWT flow, signed RS256 with node:crypto. */
import { createPrivateKey, createSign } from 'node:crypto';

interface JwtClaims {
  /** Connected app consumer key. */
  iss: string;
  /** Salesforce username. */
  sub: string;
  /** Login URL (https://login.salesforce.com, test.salesforce.com, or the emulator). */
  aud: string;
  /** Lifetime in seconds; Salesforce accepts at most 3 minutes. */
  lifetimeSeconds?: number;
}

const b64url = (data: string | Buffer): string => Buffer.from(data).toString('base64url');

export function signJwtAssertion(claims: JwtClaims, privateKeyPem: string): string {
  const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const exp = Math.floor(Date.now() / 1000) + (claims.lifetimeSeconds ?? 180);
  const payload = b64url(JSON.stringify({ iss: claims.iss, sub: claims.sub, aud: claims.aud, exp }));
  let key;
  try {
    key = createPrivateKey(privateKeyPem);
  } catch {
    // The key's content must never reach a message.
    throw new Error('the JWT private key file is not a readable PEM private key');
  }
  const signature = createSign('RSA-SHA256').update(`${header}.${payload}`).sign(key);
  return `${header}.${payload}.${b64url(signature)}`;
}
