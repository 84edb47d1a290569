/**
 * Who a donation's gift is from, before any matching (PROJECTION.md §1.4, §1.5, appendix N9-N12):
 * the donor's key, the Account fields a new donor gets, and what matching may use. Pure: the writer
 * matches and writes; this decides only what the donation itself says.
 */
import type { ApiAddress, ApiDonation, ApiUser } from '../../model/apiRecords.js';
import { truncate } from '../convert.js';
import { clean, cleanLines, fullLastName, normEmail, organisationKey, personKey } from './normalise.js';

type AccountFields = Record<string, string>;

type DonorKind = 'person' | 'noKey' | 'organisation' | 'anonymousPool';

export interface DonorPlan {
  kind: DonorKind;
  /** SvcDonorKey__c: `P:`, `O:`, `D:Donation_<id>` or `A:<site>`. */
  key: string;
  /** A Person Account (true) or a Business Account (false). */
  person: boolean;
  /** The fields a new donor is created with (RecordTypeId is the writer's). */
  fields: AccountFields;
  /** What step 3 compares (person keys only: an email and a last name). */
  match?: { email: string; lastName: string; firstName: string | null } | undefined;
  /** LastName came from the email's local part (N11). */
  lastNameFromEmail?: boolean;
}

export interface DonationDonors {
  /** The gift's donor (DonorId). */
  donor: DonorPlan;
  /** A company donation's person, created or matched without a gift (N9). */
  companyPerson?: DonorPlan | undefined;
  anonymous: boolean;
  /** The gift name's label: company, `first infix last`, or "Anonymous". */
  label: string;
  giftType: 'Individual' | 'Organizational';
}

const DEFAULT_ANONYMOUS_LASTNAME = 'Anonymous';
const PERSON_EMAIL_LENGTH = 80;

const put = (out: AccountFields, name: string, value: string | null | undefined, length: number): void => {
  const v = clean(value);
  if (v !== null) out[name] = truncate(v, length);
};

/**
 * §1.4: address + "\n" + address2, or (NL, no address line) street + house number + addition.
 * The line breaks stay (a street field holds several lines); spaces within a line are collapsed.
 */
export function streetOf(a: ApiAddress | null | undefined): string | null {
  if (!a) return null;
  const line = cleanLines(a.address);
  if (line !== null) return [line, cleanLines(a.address2)].filter((x) => x !== null).join('\n');
  if ((clean(a.country) ?? '').toUpperCase() !== 'NL') return null;
  const street = clean(a.street);
  if (street === null) return null;
  return `${street} ${clean(a.house_number) ?? ''}${clean(a.house_number_addition) ?? ''}`.trim();
}

function addressFields(out: AccountFields, a: ApiAddress | null | undefined, prefix: 'PersonMailing' | 'Billing'): void {
  const street = streetOf(a);
  // Not through put: its clean() would fold the street's line breaks into spaces.
  if (street !== null) out[`${prefix}Street`] = truncate(street, 255);
  put(out, `${prefix}PostalCode`, a?.zipcode, 20);
  put(out, `${prefix}City`, a?.city, 40);
  put(out, `${prefix}Country`, a?.country, 80);
}

interface PersonInput {
  first: string | null | undefined;
  infix: string | null | undefined;
  last: string | null | undefined;
  email: string | null | undefined;
  phone?: string | null | undefined;
  birthday?: string | null | undefined;
  address?: ApiAddress | null | undefined;
}

/** A person with a valid email: a `P:` key, matchable by step 3; LastName from the email when blank (N11). */
function personDonor(p: PersonInput): DonorPlan | undefined {
  const email = normEmail(p.email);
  if (email === null) return undefined;
  const last = fullLastName(p.infix, p.last);
  const first = clean(p.first);
  const fields = personFields(p, last ?? (email.split('@')[0] as string));
  // An email cut to the field is another address (or none): one too long is kept in the key only.
  if (email.length <= PERSON_EMAIL_LENGTH) fields.PersonEmail = email;
  return { kind: 'person', key: personKey(email, last, first), person: true, fields, match: { email, lastName: last ?? '', firstName: first }, lastNameFromEmail: last === null };
}

function personFields(p: PersonInput, lastName: string): AccountFields {
  const fields: AccountFields = {};
  put(fields, 'FirstName', p.first, 40);
  put(fields, 'LastName', lastName, 80);
  put(fields, 'Phone', p.phone, 40);
  addressFields(fields, p.address, 'PersonMailing');
  const birth = clean(p.birthday)?.slice(0, 10);
  if (birth !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(birth)) fields.PersonBirthdate = birth;
  return fields;
}

const poolDonor = (siteId: number, lastName: string): DonorPlan => ({ kind: 'anonymousPool', key: `A:${siteId}`, person: true, fields: { LastName: lastName } });

/** The donors of one donation (§1.5 table, N9, N10). */
export function donorsOf(d: ApiDonation, siteId: number, anonymousLastName = DEFAULT_ANONYMOUS_LASTNAME): DonationDonors {
  const own = `D:Donation_${d.id}`;
  const hidden = typeof d.contact_details_type === 'string' && d.contact_details_type.trim() !== '' && d.contact_details_type.trim().toLowerCase() !== 'visible';
  if (hidden) return { donor: poolDonor(siteId, anonymousLastName), anonymous: true, label: 'Anonymous', giftType: 'Individual' };
  const email = normEmail(d.email);
  const last = fullLastName(d.infix, d.last_name);
  const company = clean(d.company);
  const anonymous = d.anonymous === true;
  const person: PersonInput = { first: d.first_name, infix: d.infix, last: d.last_name, email: d.email, phone: d.phone, birthday: d.birthday, address: d.address };
  if (company !== null) {
    const fields: AccountFields = {};
    // §1.4: a Business Account gets Name and the Billing address only (§0: nothing else is sent).
    put(fields, 'Name', company, 255);
    addressFields(fields, d.address, 'Billing');
    const key = organisationKey(company, email, d.address?.zipcode, d.address?.house_number);
    const donor: DonorPlan = { kind: key === undefined ? 'noKey' : 'organisation', key: key ?? own, person: false, fields };
    return { donor, companyPerson: personDonor(person), anonymous, label: company, giftType: 'Organizational' };
  }
  const label = [clean(d.first_name), last].filter((x) => x !== null).join(' ');
  const keyed = personDonor(person);
  if (keyed) return { donor: keyed, anonymous, label: label || 'Anonymous', giftType: 'Individual' };
  if (last === null) return { donor: poolDonor(siteId, anonymousLastName), anonymous, label: 'Anonymous', giftType: 'Individual' };
  return { donor: { kind: 'noKey', key: own, person: true, fields: personFields(person, last) }, anonymous, label, giftType: 'Individual' };
}

/** N12: the action owner as a donor, only with a valid email (a `D:` key is per donation, not per person). */
export function fundraiserDonor(owner: { first_name?: string | null; infix?: string | null; last_name?: string | null; email?: string | null }, user?: ApiUser): DonorPlan | undefined {
  return personDonor({ first: owner.first_name, infix: owner.infix, last: owner.last_name, email: owner.email, phone: user?.phone, birthday: user?.birthday, address: user });
}
