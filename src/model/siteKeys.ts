/**
 * Site-qualified keys (SITES.md): with SVC_SITE_KEYS=true every key a connection writes is
 * `<site_id>:<key>` (`6:Donation_123`), so several sites whose platform ids overlap can share one
 * org. A connection reads and matches only keys with its own prefix; a bare key or another site's
 * key is never its record.
 */

/** The fields of the mirror that hold a key: the external id, and the two that name another record by its key. */
export const KEY_VALUED_FIELDS: readonly string[] = ['SvcId__c', 'TargetSvcId__c', 'QuestionSvcId__c'];

/** `<site_id>:` at the start of a key: the site that wrote it. Today's keys never hold `:`. */
const SITE_PREFIX = /^(\d+):/;

/** The prefix of a site's keys: `6:`. The site id as configured, decimal, no padding. */
export const sitePrefix = (siteId: number): string => `${siteId}:`;

/** A key as the site writes it: `6:Donation_123`. */
export const qualifyKey = (siteId: number, key: string): string => `${sitePrefix(siteId)}${key}`;

/** A key's site and the key without it; `site` undefined for a bare key (written without SVC_SITE_KEYS). */
export function parseSiteKey(key: string): { site: number | undefined; key: string } {
  const m = SITE_PREFIX.exec(key);
  return m ? { site: Number(m[1]), key: key.slice(m[0].length) } : { site: undefined, key };
}

/** A key with no site prefix: written before the org was shared (`svc-sync keys qualify` rewrites it). */
export const isBareKey = (key: string): boolean => !SITE_PREFIX.test(key);

/** Whether a key is this site's: it starts with `<siteId>:` (`16:` is not site 1's). */
export const isOwnKey = (siteId: number, key: string): boolean => key.startsWith(sitePrefix(siteId));

/** The key without this site's prefix; undefined when it is not this site's key. */
export const ownBareKey = (siteId: number, key: string): string | undefined => (isOwnKey(siteId, key) ? key.slice(sitePrefix(siteId).length) : undefined);

/**
 * The SOQL condition that keeps a read to one site's records: `SvcId__c LIKE '6:%'`. The prefix
 * is digits and a colon, nothing LIKE treats as a wildcard or SOQL must escape.
 */
export function sitePrefixFilter(siteId: number, field = 'SvcId__c'): string {
  if (!Number.isSafeInteger(siteId) || siteId < 1) throw new Error(`not a site id: ${siteId}`);
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(field)) throw new Error(`not a field name: ${JSON.stringify(field)}`);
  return `${field} LIKE '${sitePrefix(siteId)}%'`;
}
