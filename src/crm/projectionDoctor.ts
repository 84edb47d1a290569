/**
 * `doctor` with SVC_PROJECTION on: the Nonprofit Cloud objects, fields, Person Account record type
 * and picklist values the gift projection writes (PROJECTION.md §0, §2, §4), as the connected user
 * sees them by describe, each finding with its fix. An org without GiftTransaction, or one that
 * also has NPSP, is no target: `modelProblem` says so, and sync refuses before writing anything.
 */
import { NPC_KEY_FIELDS } from '../mapping/gifts/keyFields.js';
import type { DoctorFinding } from '../model/doctorFinding.js';
import type { ObjectDescription } from './describe.js';

interface Describer {
  describe(object: string): Promise<ObjectDescription | undefined>;
}

const KEY_FIX = 'svc-sync schema --project svc-org --projection npc && cd svc-org && sf project deploy start';
const NPC_MISSING = 'enable Nonprofit Cloud Fundraising (Fundraising Access licence and the Fundraising User permission for the connected user), or set SVC_PROJECTION=off';

/** The standard fields the projection sends, per object. */
const WRITTEN: Readonly<Record<string, readonly string[]>> = {
  Account: [
    'Name',
    'FirstName',
    'LastName',
    'RecordTypeId',
    'IsPersonAccount',
    'PersonEmail',
    'Phone',
    'PersonMailingStreet',
    'PersonMailingPostalCode',
    'PersonMailingCity',
    'PersonMailingCountry',
    'PersonBirthdate',
    'BillingStreet',
    'BillingPostalCode',
    'BillingCity',
    'BillingCountry',
  ],
  Campaign: ['Name', 'ParentId', 'IsActive', 'StartDate', 'EndDate', 'ExpectedRevenue'],
  GiftTransaction: ['Name', 'DonorId', 'GiftType', 'OriginalAmount', 'DonorCoverAmount', 'TransactionDate', 'Status', 'CampaignId', 'PaymentMethod', 'GatewayReference'],
  GiftSoftCredit: ['GiftTransactionId', 'RecipientId', 'Role', 'PartialPercent'],
  GiftRefund: ['GiftTransactionId', 'Amount', 'Date', 'Status', 'Reason'],
};

/** Picklist values the default mapping sends (Reason Chargeback is optional: left out when absent). */
const VALUES: ReadonlyArray<{ object: string; field: string; values: readonly string[] }> = [
  { object: 'GiftTransaction', field: 'Status', values: ['Paid'] },
  { object: 'GiftTransaction', field: 'GiftType', values: ['Individual', 'Organizational'] },
  { object: 'GiftTransaction', field: 'PaymentMethod', values: ['Credit Card', 'PayPal', 'Unknown'] },
  { object: 'GiftSoftCredit', field: 'Role', values: ['Solicitor'] },
  { object: 'GiftRefund', field: 'Status', values: ['Completed'] },
];

const finding = (object: string, field: string | undefined, problem: DoctorFinding['problem'], expected: string, actual: string, message: string): DoctorFinding => ({
  object,
  ...(field === undefined ? {} : { field }),
  problem,
  expected,
  actual,
  message,
});

/** Why this org cannot take the projection at all (no NPC objects, or NPSP next to them), or undefined. */
function modelProblem(described: ReadonlyMap<string, ObjectDescription | undefined>, npspPresent: boolean): string | undefined {
  if (!described.get('GiftTransaction')) return `SVC_PROJECTION: the org has no GiftTransaction object (no Nonprofit Cloud); ${NPC_MISSING}`;
  if (npspPresent) return 'SVC_PROJECTION: org has NPSP and NPC (migration?); set SVC_PROJECTION=npc to write Nonprofit Cloud gifts, or off';
  return undefined;
}

function objectFindings(object: string, d: ObjectDescription): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  const byName = new Map(d.fields.map((f) => [f.name, f]));
  for (const name of WRITTEN[object] ?? []) {
    if (!byName.has(name))
      out.push(
        finding(
          object,
          name,
          'missing_field',
          'present',
          'absent',
          `${object}.${name} is not visible to the connected user (${object === 'Account' ? 'Person Accounts enabled? ' : ''}check its field-level security)`,
        ),
      );
  }
  for (const k of NPC_KEY_FIELDS.filter((x) => x.object === object)) {
    const f = byName.get(k.field);
    if (!f)
      out.push(finding(object, k.field, 'missing_field', k.type.kind === 'key' ? `Text(${k.type.length}) unique external id` : 'Checkbox', 'absent', `${object}.${k.field} is missing: ${KEY_FIX}`));
    else if (k.type.kind === 'key' && !f.externalId) out.push(finding(object, k.field, 'not_external_id', 'external id', 'plain field', `${object}.${k.field} must be an external id: ${KEY_FIX}`));
    else if (k.type.kind === 'key' && !f.unique) out.push(finding(object, k.field, 'not_unique', 'unique', 'not unique', `${object}.${k.field} must be unique: ${KEY_FIX}`));
    else if (!f.createable || !f.updateable)
      out.push(finding(object, k.field, 'not_editable', 'read/edit', 'read only', `${object}.${k.field} is read-only for the connected user: sf org assign permset --name Svc_Sync_Integration`));
  }
  for (const v of VALUES.filter((x) => x.object === object)) {
    const have = byName.get(v.field)?.picklistValues;
    if (!have) continue;
    for (const value of v.values.filter((x) => !have.includes(x))) {
      out.push(finding(object, v.field, 'missing_value', value, have.join(', '), `${object}.${v.field} has no active value "${value}": add it in Setup > Object Manager > ${object} > Fields`));
    }
  }
  return out;
}

/**
 * Every finding for SVC_PROJECTION=npc|auto; the first is a `wrong_model` one when the org is no
 * target. NPSP beside NPC stops `auto` only: `npc` says which model to write (§0).
 */
export async function checkProjection(org: Describer, personRecordType = 'PersonAccount', mode: 'npc' | 'auto' = 'auto'): Promise<DoctorFinding[]> {
  const described = new Map<string, ObjectDescription | undefined>();
  for (const object of Object.keys(WRITTEN)) described.set(object, await org.describe(object));
  const npsp = mode === 'auto' && (await org.describe('npe01__OppPayment__c')) !== undefined;
  const model = modelProblem(described, npsp);
  if (model !== undefined) return [finding('GiftTransaction', undefined, 'wrong_model', 'Nonprofit Cloud', npsp && described.get('GiftTransaction') ? 'NPSP and NPC' : 'absent', model)];
  const out: DoctorFinding[] = [];
  for (const [object, d] of described) {
    if (!d) out.push(finding(object, undefined, 'missing_object', object, 'absent', `object ${object} is not visible to the connected user: ${NPC_MISSING}`));
    else out.push(...objectFindings(object, d));
  }
  const account = described.get('Account');
  if (account && !(account.recordTypes ?? []).includes(personRecordType)) {
    out.push(
      finding(
        'Account',
        'RecordTypeId',
        'missing_value',
        personRecordType,
        (account.recordTypes ?? []).join(', ') || 'none',
        `Account has no active record type ${personRecordType}: enable Person Accounts, or set SVC_NPC_PERSON_RECORD_TYPE`,
      ),
    );
  }
  return out;
}

/** The fixes of the projection's findings, in the order to run them. */
export function projectionFixes(findings: readonly DoctorFinding[]): string[] {
  const out: string[] = [];
  if (findings.some((f) => f.problem === 'wrong_model' || f.problem === 'missing_object')) out.push(NPC_MISSING);
  if (findings.some((f) => NPC_KEY_FIELDS.some((k) => k.object === f.object && k.field === f.field))) out.push(`deploy the projection's key fields: ${KEY_FIX}`);
  if (findings.some((f) => f.problem === 'missing_value')) out.push('add the missing picklist values or record type in Setup (each finding names it)');
  return out;
}
