/**
 * What an org id is, in one place (the login, the org records, the guards): "00D", then 12
 * letters or digits (15 characters, case-sensitive), or those 15 and the 3 characters Salesforce
 * adds to say their case (18). The 18-character form's last 3 must be that checksum: anything
 * else is not an id an org gave.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';

/** The 3 checksum characters of a 15-character id: one per 5 characters, a bit per upper-case letter. */
export function idChecksum(id15: string): string {
  let out = '';
  for (let chunk = 0; chunk < 3; chunk++) {
    let bits = 0;
    for (let i = 0; i < 5; i++) if (/[A-Z]/.test(id15.charAt(chunk * 5 + i))) bits |= 1 << i;
    out += ALPHABET.charAt(bits);
  }
  return out;
}

/** What is wrong with `id` as an org id, or undefined when it is one. Never echoes more than its length. */
export function orgIdProblem(id: string): string | undefined {
  if (id.length !== 15 && id.length !== 18) return `${id.length} characters; an org id has 15 or 18`;
  if (!/^00D[0-9A-Za-z]+$/.test(id)) return 'an org id is 00D and letters or digits only';
  if (id.length === 18 && id.slice(15) !== idChecksum(id.slice(0, 15))) return "its last 3 characters are not the checksum of the first 15's case";
  return undefined;
}

export const isOrgId = (id: string): boolean => orgIdProblem(id) === undefined;

/** The 15-character form: the 18-character id only adds a checksum of its case. */
export const orgKey = (orgId: string): string => orgId.slice(0, 15);
