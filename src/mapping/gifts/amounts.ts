/**
 * A donation's gift amount and dates (PROJECTION.md §2.1, appendix N2, N3, N15): G = D + C in
 * integer cents, each rounded half-up on its decimal digits as the mirror rounds; calendar dates
 * in the gift time zone.
 */
import type { ApiDonation } from '../../model/apiRecords.js';
import { ConversionError, isBlank, toNumber } from '../convert.js';

/** Whole cents of a decimal string or number ("15.0" -> 1500, "1.005" -> 101). */
function cents(value: unknown): number {
  return Math.round(toNumber(value, 18, 2) * 100);
}

interface GiftAmount {
  /** G: the gift (donation + covered costs), in cents. */
  gift: number;
  /** C: the transaction costs the donor covered, in cents. */
  cover: number;
}

/** D = donation_amount, else amount; C = transaction_costs, else 0; the registration fee is no gift. */
export function giftAmount(d: ApiDonation): GiftAmount | { problem: string } {
  const donation = isBlank(d.donation_amount) ? d.amount : d.donation_amount;
  try {
    const dc = isBlank(donation) ? 0 : cents(donation);
    const cover = isBlank(d.transaction_costs) ? 0 : cents(d.transaction_costs);
    return { gift: dc + cover, cover };
  } catch (e) {
    if (e instanceof ConversionError) return { problem: e.message };
    throw e;
  }
}

/** The calendar date (YYYY-MM-DD) of an ISO 8601 instant in a time zone; undefined when unreadable. */
export function localDate(iso: string | null | undefined, timeZone: string): string | undefined {
  if (typeof iso !== 'string' || iso.trim() === '') return undefined;
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return undefined;
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(t);
}

/** N3: the donation's currency equals the org's (trimmed, upper-cased; blank counts as the org's). */
export function currencyMismatch(d: ApiDonation, orgCurrency: string): string | undefined {
  const c = typeof d.currency === 'string' ? d.currency.trim().toUpperCase() : '';
  return c === '' || c === orgCurrency ? undefined : `CURRENCY_MISMATCH: org ${orgCurrency}, donation ${c}`;
}

/** Amounts go to Salesforce as numbers with two decimals' worth of cents. */
export const fromCents = (c: number): number => c / 100;
