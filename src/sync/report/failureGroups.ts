/**
 * A run's failed records grouped by reason (issue 40): a person reads one group per cause, with
 * its count and first records, not one line per record. Causes a retry cannot fix (field access,
 * a missing field, a validation rule) say what to fix and send to `doctor`, since the next sync
 * would only fail the same way.
 */
import type { RecordOutcome } from '../../model/outcomes.js';

/** First records named per group. */
const FIRST_KEYS = 3;

interface FailureGroup {
  object: string;
  code: string;
  /** The message of the group's first record (keys inside it made alike for grouping only). */
  message: string;
  count: number;
  keys: string[];
  /** What to fix when a retry cannot (and the next command is `svc-sync doctor`). */
  fix?: string;
}

const FIELD_ACCESS = 'field-level security, or a field missing in the org (doctor names the fix)';

/** Salesforce status codes that fail the same way on every retry, and what to fix instead. */
const NOT_RETRYABLE: Readonly<Record<string, string>> = {
  INVALID_FIELD: FIELD_ACCESS,
  INVALID_FIELD_FOR_INSERT_UPDATE: FIELD_ACCESS,
  INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY: "the integration user's access to a related record or object",
  INSUFFICIENT_ACCESS_OR_READONLY: "the integration user's object or field permissions",
  FIELD_CUSTOM_VALIDATION_EXCEPTION: 'a validation rule in the org refuses these records: change the rule or the records',
};

/**
 * Codes a retry cannot fix that may mean the org refuses every write of an object (a field
 * missing, hidden or read-only, no access, the object absent): doctor's checks can tell. A
 * validation rule they cannot: it refuses records, not the object.
 */
const SETUP_CODES: ReadonlySet<string> = new Set([...Object.keys(NOT_RETRYABLE).filter((c) => c !== 'FIELD_CUSTOM_VALIDATION_EXCEPTION'), 'NOT_FOUND', 'INVALID_TYPE']);

/** Whether a record's failure may come from the org's setup of its object (then doctor's checks are asked). */
export const mayBeOrgSetup = (code: string): boolean => SETUP_CODES.has(code);

/** What to fix for a code a retry cannot fix; undefined when the next sync may succeed. */
const notRetryableFix = (code: string): string | undefined => NOT_RETRYABLE[code];

/** Keys inside a message ("Donation_7 refused") would make every record its own group. */
const alike = (message: string): string => message.replace(/\b([A-Z][A-Za-z]*)_\d+(?:\.\d+)?\b/g, '$1_*').replace(/\s+/g, ' ');

/** The failed records of a run, one group per object and reason, the largest first. */
export function failureGroups(records: Iterable<RecordOutcome>): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const r of records) {
    if (r.action !== 'fail') continue;
    const code = r.error?.code ?? 'ERROR';
    const message = (r.error?.message ?? r.reason ?? '').replace(/\s+/g, ' ').trim();
    const id = `${r.object}\u0000${code}\u0000${alike(message)}`;
    const fix = notRetryableFix(code);
    const g = groups.get(id) ?? { object: r.object, code, message, count: 0, keys: [], ...(fix === undefined ? {} : { fix }) };
    g.count += 1;
    if (g.keys.length < FIRST_KEYS) g.keys.push(r.key);
    groups.set(id, g);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.object.localeCompare(b.object));
}

/** "2 Svc_Donation__c FIELD_CUSTOM_VALIDATION_EXCEPTION: Gift Aid ... (Donation_1, Donation_2)" */
export function groupPhrase(g: FailureGroup, maxMessage = 300): string {
  const message = g.message.length > maxMessage ? `${g.message.slice(0, maxMessage - 1)}…` : g.message;
  const more = g.count > g.keys.length ? ', …' : '';
  return `${g.count} ${g.object} ${g.code}${message ? `: ${message}` : ''} (${g.keys.join(', ')}${more})`;
}

/**
 * The reason part of a partial run's closing line: the count, the first reason whole, how many
 * others; and the next command: `svc-sync doctor` when the first reason is one a retry cannot fix.
 */
export function failureSummary(records: Iterable<RecordOutcome>, failed: number, retryFix: string): { why: string; next: string } {
  const groups = failureGroups(records);
  const head = `${failed} ${failed === 1 ? 'record' : 'records'} failed`;
  const first = groups[0];
  if (first === undefined) return { why: head, next: retryFix };
  const others = groups.length > 1 ? `; ${groups.length - 1} other reason${groups.length === 2 ? '' : 's'}` : '';
  const cannot = first.fix === undefined ? '' : `; a retry cannot fix it: ${first.fix}`;
  return { why: `${head}: ${groupPhrase(first)}${others}${cannot}`, next: first.fix === undefined ? retryFix : 'svc-sync doctor' };
}
