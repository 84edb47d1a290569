/**
 * The org guard of the gift projection (PROJECTION.md §0): a run with SVC_PROJECTION=npc or auto
 * describes the org once at its start, before the platform is read, and either knows the
 * projection can write (`npc`), resolves `auto` to the mirror alone (`off`), or refuses with exit
 * 2 in one line naming what is missing. The checks are doctor's (projectionDoctor.ts), so the two
 * never disagree about an org.
 */
import type { NpspRefundSetting, ProjectionMode } from '../config/settings.js';
import { NPC_KEY_FIELDS, NPSP_KEY_FIELDS } from '../mapping/gifts/keyFields.js';
import type { DoctorFinding, DoctorProblem } from '../model/doctorFinding.js';
import { ConfigError } from '../model/errors.js';
import type { ObjectDescription } from './describe.js';
import { checkProjection } from './projectionDoctor.js';

interface Describer {
  describe(object: string): Promise<ObjectDescription | undefined>;
}

/** What a run does about gifts: write them into Nonprofit Cloud or NPSP, or mirror alone. */
type ResolvedProjection = 'npc' | 'npsp' | 'off';

/** The setting, what it resolved to in this org, and why (the run's header line and `--json`). */
export interface ProjectionChoice {
  setting: ProjectionMode;
  resolved: ResolvedProjection;
  reason: string;
  /** NPSP: how refunds are written in this org (P2), decided from the payment object's describe. */
  refundMode?: 'stage' | 'payments' | undefined;
}

/** How many findings the refusal names before "(+N more)": the line stays one line. */
const NAMED = 3;

/** Each object described once, however many checks ask (doctor's checks, then the key fields). */
function once(org: Describer): Describer {
  const seen = new Map<string, Promise<ObjectDescription | undefined>>();
  return {
    describe(object) {
      let d = seen.get(object);
      if (d === undefined) {
        d = org.describe(object);
        seen.set(object, d);
      }
      return d;
    },
  };
}

const WORDS: Readonly<Record<DoctorProblem, string>> = {
  missing_object: 'missing',
  missing_field: 'missing',
  hidden_fields: 'fields hidden',
  not_editable: 'read-only',
  wrong_type: 'of another type',
  too_short: 'too short',
  too_small: 'too small',
  wrong_target: 'points elsewhere',
  not_external_id: 'not an external id',
  not_unique: 'not unique',
  missing_value: 'lacks',
  wrong_model: 'no target',
};

/** A finding in a few words: `GiftTransaction.SvcGiftKey__c missing`, `GiftSoftCredit.Role lacks "Solicitor"`. */
function shortly(f: DoctorFinding): string {
  const where = f.field === undefined ? f.object : `${f.object}.${f.field}`;
  if (f.problem === 'missing_value') return `${where} lacks "${f.expected}"`;
  return `${where} ${WORDS[f.problem]}`;
}

/** The one line of a refusal: what is missing, and doctor next (it gives each fix). */
function refusalLine(setting: ProjectionMode, findings: readonly DoctorFinding[]): string {
  const model = findings.find((f) => f.problem === 'wrong_model');
  const next = '; next: svc-sync doctor';
  if (model !== undefined) return `${model.message.replace(/^SVC_PROJECTION: /, `SVC_PROJECTION ${setting}: `)}${next}`;
  const named = findings.slice(0, NAMED).map(shortly).join(', ');
  const more = findings.length > NAMED ? ` (+${findings.length - NAMED} more)` : '';
  return `SVC_PROJECTION ${setting}: the org cannot take the gift projection: ${named}${more}${next}`;
}

const keyFieldMissing = (f: DoctorFinding): boolean => f.problem === 'missing_field' && NPC_KEY_FIELDS.some((k) => k.object === f.object && k.field === f.field);

/**
 * The projection a run does in this org. `npc`: doctor's checks of objects and fields must pass,
 * else a ConfigError (exit 2); a missing picklist value is left to the records that send it. `auto`: Nonprofit Cloud when the org has GiftTransaction and the key
 * fields `schema --projection npc` deploys; off when it lacks either (no NPC, or NPC not set up for
 * svc-sync); refused when the org has NPSP beside NPC, or NPC set up with something else missing.
 * Off (undefined): nothing is asked.
 */
export async function chooseProjection(
  org: Describer,
  setting: ProjectionMode | undefined,
  personRecordType = 'PersonAccount',
  npspRefund: NpspRefundSetting = 'auto',
): Promise<ProjectionChoice | undefined> {
  if (setting === undefined) return undefined;
  const cached = once(org);
  if (setting === 'npsp') return chooseNpsp(cached, setting, npspRefund);
  if (setting === 'auto') {
    const npc = (await cached.describe('GiftTransaction')) !== undefined;
    const npsp = await hasNpsp(cached);
    if (npc && npsp) throw new ConfigError('SVC_PROJECTION auto: org has NPSP and NPC (migration?); set SVC_PROJECTION=npc or npsp; next: svc-sync doctor', ['svc-sync doctor']);
    if (npsp) return chooseNpsp(cached, setting, npspRefund);
    if (!npc) return { setting, resolved: 'off', reason: 'the org has no GiftTransaction and no NPSP' };
  }
  // A picklist value or record type missing fails only the records that send it (doctor lists it);
  // an object or field missing fails every gift, so the run is refused.
  const findings = (await checkProjection(cached, personRecordType, setting === 'npc' ? 'npc' : 'auto')).filter((f) => f.problem !== 'missing_value');
  if (setting === 'auto' && findings.some(keyFieldMissing)) return { setting, resolved: 'off', reason: 'key fields not deployed, see doctor' };
  if (findings.length > 0) throw new ConfigError(refusalLine(setting, findings), ['svc-sync doctor']);
  return { setting, resolved: 'npc', reason: setting === 'auto' ? 'GiftTransaction and key fields found' : 'the org checked' };
}

/** NPSP's own objects (§0): the payment object and the Opportunity's primary contact. */
async function hasNpsp(org: Describer): Promise<boolean> {
  if ((await org.describe('npe01__OppPayment__c')) === undefined) return false;
  return (await org.describe('Opportunity'))?.fields.some((f) => f.name === 'npsp__Primary_Contact__c') === true;
}

/**
 * `npsp` (or `auto` in an org with NPSP alone): the org must have NPSP and the key fields
 * `schema --projection npsp` deploys, else exit 2 (`npsp`) or the mirror alone (`auto`, key fields
 * not deployed), decided from describes before anything is read or written.
 */
async function chooseNpsp(org: Describer, setting: ProjectionMode, npspRefund: NpspRefundSetting): Promise<ProjectionChoice> {
  if (!(await hasNpsp(org)))
    throw new ConfigError(`SVC_PROJECTION ${setting}: the org has no NPSP (npe01__OppPayment__c, Opportunity.npsp__Primary_Contact__c); set SVC_PROJECTION=npc or off; next: svc-sync doctor`, [
      'svc-sync doctor',
    ]);
  const missing: string[] = [];
  for (const k of NPSP_KEY_FIELDS) {
    const d = await org.describe(k.object);
    if (d === undefined) missing.push(k.object);
    else if (!d.fields.some((f) => f.name === k.field)) missing.push(`${k.object}.${k.field}`);
  }
  if (missing.length === 0) return { setting, resolved: 'npsp', reason: setting === 'auto' ? 'NPSP and key fields found' : 'the org checked', refundMode: await refundModeOf(org, npspRefund) };
  if (setting === 'auto') return { setting, resolved: 'off', reason: 'key fields not deployed, see doctor' };
  const named = [...new Set(missing)];
  const more = named.length > NAMED ? ` (+${named.length - NAMED} more)` : '';
  throw new ConfigError(`SVC_PROJECTION npsp: the org cannot take the gift projection: ${named.slice(0, NAMED).join(', ')} missing${more}; next: svc-sync doctor`, ['svc-sync doctor']);
}

/**
 * P2: `payments` where the payment object shows npsp__DebitType__c and npsp__OriginalPayment__c to
 * the connected user, else `stage`; `payments` forced where it does not is refused (exit 2), since
 * every refund payment would fail.
 */
async function refundModeOf(org: Describer, npspRefund: NpspRefundSetting): Promise<'stage' | 'payments'> {
  if (npspRefund === 'stage') return 'stage';
  const fields = new Set((await org.describe('npe01__OppPayment__c'))?.fields.map((f) => f.name));
  const debit = fields.has('npsp__DebitType__c') && fields.has('npsp__OriginalPayment__c');
  if (debit) return 'payments';
  if (npspRefund === 'auto') return 'stage';
  throw new ConfigError(
    'SVC_NPSP_REFUND_MODE payments: npe01__OppPayment__c shows no npsp__DebitType__c / npsp__OriginalPayment__c to the connected user; grant field access or set SVC_NPSP_REFUND_MODE=stage; next: svc-sync doctor',
    ['svc-sync doctor'],
  );
}

/** The projection a run does in this org (chooseProjection without the reason). */
export async function resolveProjection(org: Describer, setting: ProjectionMode | undefined, personRecordType = 'PersonAccount'): Promise<ResolvedProjection> {
  return (await chooseProjection(org, setting, personRecordType))?.resolved ?? 'off';
}
