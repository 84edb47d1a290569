/**
 * `doctor` for gifts in an NPSP org (PROJECTION.md §0, §1.4, §2.2, §2.3, §4 and appendix P1-P14):
 * the objects and fields the NPSP target writes, its key fields, the stages (Closed Won and the
 * refund stage, read from OpportunityStage: the picklist alone does not say which stage is won),
 * the soft-credit contact role, the record types, and NPSP's payments setting where the refund
 * mode needs it; each finding with its fix. The NPC checks stay in projectionDoctor.ts.
 */
import { DEFAULT_NPSP_SETTINGS, type NpspSettings } from '../config/settings.js';
import type { CrmRecord } from '../model/crmRecords.js';
import type { DoctorFinding } from '../model/doctorFinding.js';
import type { ObjectDescription } from './describe.js';
import { checkProjection, projectionFixes } from './projectionDoctor.js';

interface NpspOrgReader {
  describe(object: string): Promise<ObjectDescription | undefined>;
  query(soql: string): Promise<CrmRecord[]>;
}

/** The names the NPSP target writes: the SVC_NPSP_* settings (defaults P8-P10); refund mode auto: P2. */
type NpspNames = NpspSettings;

const KEY_FIX = 'svc-sync schema --project svc-org --projection npsp && cd svc-org && sf project deploy start';
const NPSP_MISSING = 'install NPSP (the Nonprofit Success Pack) and give the connected user access to its objects, or set SVC_PROJECTION=off';
const SETTINGS = 'npe01__Contacts_And_Orgs_Settings__c';

/** The standard and NPSP fields the target sends or reads, per object (P3, P5, P6, P8-P10). */
const WRITTEN: Readonly<Record<string, readonly string[]>> = {
  Contact: [
    'FirstName',
    'LastName',
    'AccountId',
    'Email',
    'npe01__HomeEmail__c',
    'npe01__WorkEmail__c',
    'npe01__AlternateEmail__c',
    'npe01__Preferred_Email__c',
    'Phone',
    'HomePhone',
    'MailingStreet',
    'MailingPostalCode',
    'MailingCity',
    'MailingCountry',
    'Birthdate',
  ],
  Account: ['Name', 'RecordTypeId', 'BillingStreet', 'BillingPostalCode', 'BillingCity', 'BillingCountry'],
  Campaign: ['Name', 'ParentId', 'IsActive', 'StartDate', 'EndDate', 'ExpectedRevenue'],
  Opportunity: ['Name', 'StageName', 'CloseDate', 'Amount', 'AccountId', 'RecordTypeId', 'CampaignId', 'npsp__Primary_Contact__c', 'npe01__Do_Not_Automatically_Create_Payment__c'],
  OpportunityContactRole: ['OpportunityId', 'ContactId', 'Role', 'IsPrimary'],
  npe01__OppPayment__c: ['npe01__Opportunity__c', 'npe01__Payment_Amount__c', 'npe01__Paid__c', 'npe01__Payment_Date__c'],
};

/** The key fields `schema --projection npsp` deploys; the slot key is plain text (P9: OCR external ids unconfirmed). */
const KEYS: ReadonlyArray<{ object: string; field: string; kind: 'key' | 'text' | 'checkbox'; length?: number }> = [
  { object: 'Contact', field: 'SvcDonorKey__c', kind: 'key', length: 255 },
  { object: 'Account', field: 'SvcDonorKey__c', kind: 'key', length: 255 },
  { object: 'Campaign', field: 'SvcCampaignKey__c', kind: 'key', length: 50 },
  { object: 'Opportunity', field: 'SvcGiftKey__c', kind: 'key', length: 50 },
  { object: 'Opportunity', field: 'SvcAnonymous__c', kind: 'checkbox' },
  { object: 'OpportunityContactRole', field: 'SvcSoftCreditKey__c', kind: 'text', length: 80 },
  { object: 'npe01__OppPayment__c', field: 'SvcRefundKey__c', kind: 'key', length: 50 },
];

const finding = (object: string, field: string | undefined, problem: DoctorFinding['problem'], expected: string, actual: string, message: string): DoctorFinding => ({
  object,
  ...(field === undefined ? {} : { field }),
  problem,
  expected,
  actual,
  message,
});

function keyFindings(object: string, d: ObjectDescription): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  const byName = new Map(d.fields.map((f) => [f.name, f]));
  for (const k of KEYS.filter((x) => x.object === object)) {
    const f = byName.get(k.field);
    const expected = k.kind === 'checkbox' ? 'Checkbox' : `Text(${k.length ?? 0})${k.kind === 'key' ? ' unique external id' : ''}`;
    if (!f) out.push(finding(object, k.field, 'missing_field', expected, 'absent', `${object}.${k.field} is missing: ${KEY_FIX}`));
    else if (k.kind === 'key' && !f.externalId) out.push(finding(object, k.field, 'not_external_id', 'external id', 'plain field', `${object}.${k.field} must be an external id: ${KEY_FIX}`));
    else if (k.kind === 'key' && !f.unique) out.push(finding(object, k.field, 'not_unique', 'unique', 'not unique', `${object}.${k.field} must be unique: ${KEY_FIX}`));
    else if (!f.createable || !f.updateable)
      out.push(finding(object, k.field, 'not_editable', 'read/edit', 'read only', `${object}.${k.field} is read-only for the connected user: sf org assign permset --name Svc_Sync_Integration`));
  }
  return out;
}

function fieldFindings(object: string, d: ObjectDescription, names: NpspNames): DoctorFinding[] {
  const byName = new Map(d.fields.map((f) => [f.name, f]));
  const out = (WRITTEN[object] ?? [])
    .filter((name) => !byName.has(name))
    .map((name) => finding(object, name, 'missing_field', 'present', 'absent', `${object}.${name} is not visible to the connected user (check its field-level security)`));
  const value = (field: string, wanted: string, fix: string): void => {
    const have = byName.get(field)?.picklistValues;
    if (have && !have.includes(wanted)) out.push(finding(object, field, 'missing_value', wanted, have.join(', ') || 'none', `${object}.${field} has no active value "${wanted}": ${fix}`));
  };
  // NPSP writes 'Personal' for a personal email (BDI_ContactService.strPreferredEmail).
  if (object === 'Contact') value('npe01__Preferred_Email__c', 'Personal', 'add it in Setup > Object Manager > Contact > Fields > Preferred Email');
  // The fundraiser's slot; on an organization's gift NPSP gives the primary contact this role too (P9, appendix).
  if (object === 'OpportunityContactRole') value('Role', names.fundraiserRole, 'add it in Setup > Object Manager > Opportunity Contact Role > Fields > Role, or set SVC_NPSP_ROLE_FUNDRAISER');
  const recordType = object === 'Account' ? names.orgRecordType : object === 'Opportunity' ? names.donationRecordType : undefined;
  const setting = object === 'Account' ? 'SVC_NPSP_ORG_RECORD_TYPE' : 'SVC_NPSP_DONATION_RECORD_TYPE';
  if (recordType !== undefined && !(d.recordTypes ?? []).includes(recordType))
    out.push(
      finding(
        object,
        'RecordTypeId',
        'missing_value',
        recordType,
        (d.recordTypes ?? []).join(', ') || 'none',
        `${object} has no active record type ${recordType}: activate it and assign it to the connected user's profile, or set ${setting}`,
      ),
    );
  return [...out, ...keyFindings(object, d)];
}

/** The won stage must be won; the refund stage (`stage` mode, P10) and the canceled stage (P12) closed and not won. */
async function stageFindings(org: NpspOrgReader, names: NpspNames, mode: 'stage' | 'payments'): Promise<DoctorFinding[]> {
  let rows: CrmRecord[];
  try {
    rows = await org.query('SELECT ApiName, IsClosed, IsWon FROM OpportunityStage WHERE IsActive = true');
  } catch (err) {
    return [
      finding('OpportunityStage', undefined, 'missing_object', 'readable', 'refused', `the stages cannot be read (${(err as Error).message}): give the connected user "View Setup and Configuration"`),
    ];
  }
  const stage = (name: string): CrmRecord | undefined => rows.find((r) => r.ApiName === name);
  const shown = rows.map((r) => String(r.ApiName)).join(', ') || 'none';
  const fix = (name: string, what: string, setting: string): string => `Opportunity stage "${name}" ${what}: fix it in Setup > Object Manager > Opportunity > Fields > Stage, or set ${setting}`;
  const out: DoctorFinding[] = [];
  const won = stage(names.stageWon);
  if (!won) out.push(finding('Opportunity', 'StageName', 'missing_value', names.stageWon, shown, fix(names.stageWon, 'is not an active stage', 'SVC_NPSP_STAGE_WON')));
  else if (won.IsWon !== true)
    out.push(finding('Opportunity', 'StageName', 'missing_value', `${names.stageWon} (closed, won)`, 'not won', fix(names.stageWon, 'must be Closed/Won', 'SVC_NPSP_STAGE_WON')));
  const lostStages = new Map<string, string>();
  if (mode === 'stage') lostStages.set(names.stageRefunded, 'SVC_NPSP_STAGE_REFUNDED');
  if (!lostStages.has(names.stageCanceled)) lostStages.set(names.stageCanceled, 'SVC_NPSP_STAGE_CANCELED');
  for (const [name, setting] of lostStages) {
    const lost = stage(name);
    if (!lost) out.push(finding('Opportunity', 'StageName', 'missing_value', name, shown, fix(name, 'is not an active stage', setting)));
    else if (lost.IsClosed !== true || lost.IsWon === true)
      out.push(finding('Opportunity', 'StageName', 'missing_value', `${name} (closed, not won)`, lost.IsClosed === true ? 'won' : 'open', fix(name, 'must be Closed/Lost', setting)));
  }
  return out;
}

/** The refund mode a run takes in this org (P2, as the guard decides it): forced, or payments where the DebitType fields show. */
function refundModeOf(payments: ObjectDescription, names: NpspNames): { mode: 'stage' | 'payments'; debit: boolean } {
  const fields = new Set(payments.fields.map((f) => f.name));
  const debit = fields.has('npsp__DebitType__c') && fields.has('npsp__OriginalPayment__c');
  return { mode: names.refundMode === 'auto' ? (debit ? 'payments' : 'stage') : names.refundMode, debit };
}

/** `payments` mode needs the DebitType fields and NPSP's automatic payments (the refund points at the gift's payment, P10). */
async function paymentFindings(org: NpspOrgReader, payments: ObjectDescription, names: NpspNames): Promise<DoctorFinding[]> {
  const { mode, debit } = refundModeOf(payments, names);
  if (mode === 'stage') return [];
  if (!debit)
    return [
      finding(
        'npe01__OppPayment__c',
        'npsp__DebitType__c',
        'missing_field',
        'present',
        'absent',
        'npe01__OppPayment__c.npsp__DebitType__c / npsp__OriginalPayment__c are not visible to the connected user: grant field access, or set SVC_NPSP_REFUND_MODE=stage (sync refuses payments mode until then)',
      ),
    ];
  const rows = await org.query(`SELECT npe01__Payments_Enabled__c FROM ${SETTINGS}`).catch(() => undefined);
  const enabled = rows?.[0]?.npe01__Payments_Enabled__c;
  if (enabled === false)
    return [
      finding(
        SETTINGS,
        'npe01__Payments_Enabled__c',
        'missing_value',
        'Payments enabled',
        'disabled',
        'NPSP creates no payments, so a refund has no payment to point at (ORIGINAL_PAYMENT_MISSING): enable NPSP Settings > Donations > Payments, or set SVC_NPSP_REFUND_MODE=stage',
      ),
    ];
  return [];
}

/** Every finding for gifts in NPSP; the first is a `wrong_model` one when the org has no NPSP. */
async function checkNpsp(org: NpspOrgReader, names: NpspNames): Promise<DoctorFinding[]> {
  const described = new Map<string, ObjectDescription | undefined>();
  for (const object of Object.keys(WRITTEN)) described.set(object, await org.describe(object));
  const payments = described.get('npe01__OppPayment__c');
  if (!payments || !described.get('Opportunity')?.fields.some((f) => f.name === 'npsp__Primary_Contact__c'))
    return [
      finding(
        'npe01__OppPayment__c',
        undefined,
        'wrong_model',
        'NPSP',
        'absent',
        `SVC_PROJECTION: the org has no NPSP (no npe01__OppPayment__c or Opportunity.npsp__Primary_Contact__c); ${NPSP_MISSING}`,
      ),
    ];
  const out: DoctorFinding[] = [];
  for (const [object, d] of described) {
    if (!d) out.push(finding(object, undefined, 'missing_object', object, 'absent', `object ${object} is not visible to the connected user: ${NPSP_MISSING}`));
    else out.push(...fieldFindings(object, d, names));
  }
  return [...out, ...(await stageFindings(org, names, refundModeOf(payments, names).mode)), ...(await paymentFindings(org, payments, names))];
}

/** The fixes of the NPSP findings, in the order to run them. */
function npspFixes(findings: readonly DoctorFinding[]): string[] {
  const out: string[] = [];
  if (findings.some((f) => f.problem === 'wrong_model' || (f.problem === 'missing_object' && f.object !== 'OpportunityStage'))) out.push(NPSP_MISSING);
  if (findings.some((f) => KEYS.some((k) => k.object === f.object && k.field === f.field))) out.push(`deploy the projection's key fields: ${KEY_FIX}`);
  if (findings.some((f) => f.problem === 'missing_value')) out.push('add the missing picklist values, stages or record types, or change NPSP Settings, in Setup (each finding names it)');
  return out;
}

/**
 * doctor's gift checks for the setting: NPSP's for `npsp`, and for `auto` on an org with NPSP and
 * without Nonprofit Cloud; NPC's otherwise (projectionDoctor.ts, which also refuses both models).
 */
export async function checkGiftModel(org: NpspOrgReader, mode: string, names: NpspSettings = DEFAULT_NPSP_SETTINGS): Promise<{ findings: DoctorFinding[]; fixes: string[] }> {
  const npsp = mode === 'npsp' || (mode === 'auto' && (await org.describe('GiftTransaction')) === undefined && (await org.describe('npe01__OppPayment__c')) !== undefined);
  if (npsp) {
    const findings = await checkNpsp(org, names);
    return { findings, fixes: npspFixes(findings) };
  }
  const findings = await checkProjection(org, undefined, mode === 'npc' ? 'npc' : 'auto');
  return { findings, fixes: projectionFixes(findings) };
}
