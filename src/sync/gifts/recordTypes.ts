/**
 * What the projection reads of the org once a run (or kept with the guard's verdict for a day):
 * the Account record types the donor step writes with (PROJECTION.md §1.4): the Person Account
 * type named by SVC_NPC_PERSON_RECORD_TYPE (a DeveloperName, default PersonAccount) and a business
 * type (an org without them cannot take donors: a configuration error); and the org's currency,
 * the one a gift may be in (N1, N3: a single-currency org).
 */
import type { CrmRecord } from '../../model/crmRecords.js';
import { ConfigError } from '../../model/errors.js';
import type { GiftSink } from '../../model/ports.js';

/** Salesforce's own business record type when Person Accounts are enabled. */
const BUSINESS_DEFAULT = 'Business_Account';

const nameOf = (r: CrmRecord): string => String(r.DeveloperName ?? '');

export interface OrgLookups {
  person: string;
  business: string;
  /** Organization.DefaultCurrencyIsoCode, upper-case (EUR when the org says none: N1). */
  currency: string;
}

/** The record types and the org's currency: two queries. */
export async function readOrgLookups(sink: GiftSink, personDeveloperName: string): Promise<OrgLookups> {
  const types = await readRecordTypes(sink, personDeveloperName);
  const [org] = await sink.query('SELECT DefaultCurrencyIsoCode FROM Organization');
  const code = typeof org?.DefaultCurrencyIsoCode === 'string' ? org.DefaultCurrencyIsoCode.trim().toUpperCase() : '';
  return { ...types, currency: /^[A-Z]{3}$/.test(code) ? code : 'EUR' };
}

export async function readRecordTypes(sink: GiftSink, personDeveloperName: string): Promise<{ person: string; business: string }> {
  const rows = await sink.query("SELECT Id, DeveloperName, IsPersonType FROM RecordType WHERE SobjectType = 'Account' AND IsActive = true");
  const person = rows.find((r) => nameOf(r) === personDeveloperName);
  const shown = JSON.stringify(personDeveloperName.slice(0, 80));
  if (person === undefined) throw new ConfigError(`SVC_NPC_PERSON_RECORD_TYPE ${shown}: no active Account record type has that DeveloperName; run svc-sync doctor`);
  if (person.IsPersonType !== true) throw new ConfigError(`SVC_NPC_PERSON_RECORD_TYPE ${shown}: that Account record type is not a Person Account type; run svc-sync doctor`);
  // Business types sorted by name, Salesforce's default first, so the choice is the same every run.
  const business = rows.filter((r) => r.IsPersonType !== true).sort((a, b) => (nameOf(a) === BUSINESS_DEFAULT ? -1 : nameOf(b) === BUSINESS_DEFAULT ? 1 : nameOf(a).localeCompare(nameOf(b))))[0];
  if (business === undefined) throw new ConfigError('the org has no active business Account record type, which company donors need; run svc-sync doctor');
  return { person: String(person.Id), business: String(business.Id) };
}

/** NPSP's lookups (§1.4, P6, P8): the Organization Account type (required), the Donation Opportunity type (sent when present), the currency. */
export interface NpspLookups {
  organisation: string;
  donation?: string | undefined;
  currency: string;
}

export async function readNpspLookups(sink: GiftSink, organisation = 'Organization', donation = 'Donation'): Promise<NpspLookups> {
  const rows = await sink.query('SELECT Id, DeveloperName, SobjectType FROM RecordType WHERE IsActive = true');
  const of = (object: string, name: string): string | undefined => {
    const r = rows.find((x) => x.SobjectType === object && nameOf(x) === name);
    return r === undefined ? undefined : String(r.Id);
  };
  const org = of('Account', organisation);
  if (org === undefined)
    throw new ConfigError(
      `SVC_NPSP_ORG_RECORD_TYPE ${JSON.stringify(organisation)}: the org has no active Account record type with that DeveloperName, which NPSP company donors need; run svc-sync doctor`,
    );
  const [o] = await sink.query('SELECT DefaultCurrencyIsoCode FROM Organization');
  const code = typeof o?.DefaultCurrencyIsoCode === 'string' ? o.DefaultCurrencyIsoCode.trim().toUpperCase() : '';
  return { organisation: org, donation: of('Opportunity', donation), currency: /^[A-Z]{3}$/.test(code) ? code : 'EUR' };
}
