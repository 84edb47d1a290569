/**
 * `svc-sync doctor`, org side: describes every object of the schema (and of the sync log) as the
 * connected user sees it and reports what is missing or incompatible (types, lengths, precision, lookup targets,
 * SvcId__c as external id) and what that user cannot write (field-level security).
 */
import type { DoctorFinding, DoctorProblem } from '../model/doctorFinding.js';
import type { SetupProblem } from '../model/ports.js';
import { KEY_FIELD } from '../model/refs.js';
import { NAME_FIELD, NAME_LENGTH, SCHEMAS } from '../mapping/schema.js';
import type { FieldDescription, ObjectDescription } from './describe.js';
import { ASSIGN_PERMISSION_SET, PERMISSION_SET, takesFieldPermission } from './permissionSet.js';
import { LOG_SCHEMAS, type OrgFieldDef, type OrgFieldType } from './syncLogSchema.js';

type FieldType = OrgFieldType;

/** Problems the permission set may be the cure for. */
const ACCESS_PROBLEMS: readonly DoctorProblem[] = ['missing_field', 'hidden_fields', 'not_editable'];

const DEPLOY = 'svc-sync schema --project svc-org && cd svc-org && sf project deploy start';

/** The commands that fix what was found, in the order to run them. */
export function fixesFor(findings: readonly DoctorFinding[]): string[] {
  const actions: string[] = [];
  if (findings.some((f) => f.problem !== 'not_editable')) actions.push(`deploy the metadata: ${DEPLOY}`);
  if (findings.some((f) => ACCESS_PROBLEMS.includes(f.problem))) actions.push(`give the connected user access to the fields: ${ASSIGN_PERMISSION_SET}`);
  return actions;
}

/** Anything that can describe an object: SalesforceSink has this method. */
interface Describer {
  describe(object: string): Promise<ObjectDescription | undefined>;
}

const SF_TYPES: Record<FieldType['kind'], string[]> = {
  text: ['string'],
  longtext: ['textarea'],
  number: ['double', 'int', 'currency', 'percent'],
  checkbox: ['boolean'],
  date: ['date'],
  datetime: ['datetime'],
  lookup: ['reference'],
  picklist: ['picklist'],
};

function expectedText(t: FieldType): string {
  switch (t.kind) {
    case 'text':
      return `Text(${t.length})`;
    case 'longtext':
      return `LongTextArea(${t.length})`;
    case 'number':
      return `Number(${t.precision},${t.scale})`;
    case 'checkbox':
      return 'Checkbox';
    case 'date':
      return 'Date';
    case 'datetime':
      return 'DateTime';
    case 'lookup':
      return `Lookup(${t.to})`;
    case 'picklist':
      return `Picklist(${t.values.join(', ')})`;
  }
}

function actualText(d: FieldDescription): string {
  if (d.type === 'string' || d.type === 'textarea') return `${d.type}(${d.length})`;
  if (d.type === 'double') return `double(${d.precision},${d.scale})`;
  if (d.type === 'reference') return `reference(${d.referenceTo.join(',')})`;
  return d.type;
}

function checkField(object: string, name: string, t: FieldType, d: FieldDescription): DoctorFinding[] {
  const base = { object, field: name, expected: expectedText(t), actual: actualText(d) };
  if (!SF_TYPES[t.kind].includes(d.type)) return [{ ...base, problem: 'wrong_type', message: `${object}.${name} is ${base.actual}, expected ${base.expected}` }];
  if ((t.kind === 'text' || t.kind === 'longtext') && d.length < t.length) {
    return [{ ...base, problem: 'too_short', message: `${object}.${name} holds ${d.length} characters, the schema needs ${t.length}` }];
  }
  if (t.kind === 'number' && d.type === 'double' && (d.precision - d.scale < t.precision - t.scale || d.scale < t.scale)) {
    return [{ ...base, problem: 'too_small', message: `${object}.${name} is ${base.actual}, too small for ${base.expected}` }];
  }
  if (t.kind === 'lookup' && !d.referenceTo.includes(t.to)) {
    return [{ ...base, problem: 'wrong_target', message: `${object}.${name} looks up ${d.referenceTo.join(', ') || 'nothing'}, expected ${t.to}` }];
  }
  return [];
}

/** What is wrong with one field of an object in the org, if anything (`hidden`: the object's optional fields are all hidden, said once). */
function fieldFindings(apiName: string, f: OrgFieldDef, fd: FieldDescription | undefined, hidden: boolean): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  if (!fd) {
    if (hidden && takesFieldPermission(f)) return out;
    const why = takesFieldPermission(f) ? `does not exist, or field-level security hides it from the connected user (${ASSIGN_PERMISSION_SET})` : 'does not exist';
    out.push({
      object: apiName,
      field: f.name,
      problem: 'missing_field',
      expected: expectedText(f.type),
      actual: 'absent',
      message: `field ${apiName}.${f.name} (${expectedText(f.type)}) ${why}`,
    });
    return out;
  }
  const wrong = checkField(apiName, f.name, f.type, fd);
  out.push(...wrong);
  if (wrong.length === 0 && (!fd.createable || !fd.updateable)) {
    const actual = !fd.createable && !fd.updateable ? 'read-only' : !fd.createable ? 'not createable' : 'not updateable';
    out.push({
      object: apiName,
      field: f.name,
      problem: 'not_editable',
      expected: 'createable, updateable',
      actual,
      message: `${apiName}.${f.name} is ${actual} for the connected user (field-level security): assign the permission set ${PERMISSION_SET} (${ASSIGN_PERMISSION_SET})`,
    });
  }
  if (f.externalId && !fd.externalId) {
    out.push({
      object: apiName,
      field: f.name,
      problem: 'not_external_id',
      expected: 'external id',
      actual: 'not an external id',
      message: `${apiName}.${f.name} must be an external id${f.name === KEY_FIELD ? ' (upserts match on it)' : ''}`,
    });
  }
  if (f.unique && !fd.unique) {
    out.push({ object: apiName, field: f.name, problem: 'not_unique', expected: 'unique', actual: 'not unique', message: `${apiName}.${f.name} must be unique` });
  }
  return out;
}

/** The objects doctor checks: the eight mirrored ones, then the sync log's two. */
const CHECKED: ReadonlyArray<{ apiName: string; label: string; fields: readonly OrgFieldDef[] }> = [...SCHEMAS, ...LOG_SCHEMAS];

export async function checkOrg(org: Describer): Promise<DoctorFinding[]> {
  const findings: DoctorFinding[] = [];
  for (const s of CHECKED) findings.push(...(await checkObject(org, s)));
  return findings;
}

/** Problems that fail every write of the object, whatever the record holds. */
const EVERY_WRITE: readonly DoctorProblem[] = ['missing_object', 'missing_field', 'hidden_fields', 'not_editable'];

/**
 * doctor's checks of one object (one describe call), kept to what makes every write of it fail:
 * a run whose whole batch failed asks, and stops when they confirm it (sync/writer.ts).
 */
export async function everyWriteFails(org: Describer, object: string): Promise<SetupProblem | undefined> {
  const s = CHECKED.find((c) => c.apiName === object);
  if (s === undefined) return undefined;
  const blocking = (await checkObject(org, s)).filter((f) => EVERY_WRITE.includes(f.problem) || (f.problem === 'not_external_id' && f.field === KEY_FIELD));
  const first = blocking[0];
  return first === undefined ? undefined : { cause: first.message, findings: blocking.length };
}

async function checkObject(org: Describer, s: (typeof CHECKED)[number]): Promise<DoctorFinding[]> {
  const d = await org.describe(s.apiName);
  if (!d) {
    return [
      {
        object: s.apiName,
        problem: 'missing_object',
        expected: s.label,
        actual: 'absent',
        message: `object ${s.apiName} does not exist in the org (deploy the output of \`svc-sync schema\`)`,
      },
    ];
  }
  const findings: DoctorFinding[] = [];
  const byName = new Map(d.fields.map((f) => [f.name, f]));
  // Deployed without field-level security, every optional field is hidden from the API user:
  // one finding for the object says so better than one "missing" line per field.
  const optional = s.fields.filter(takesFieldPermission);
  const hidden = optional.length > 0 && optional.every((f) => !byName.has(f.name));
  if (hidden) {
    findings.push({
      object: s.apiName,
      problem: 'hidden_fields',
      expected: `${optional.length} fields`,
      actual: 'none visible',
      message: `none of the ${optional.length} optional fields of ${s.apiName} is visible to the connected user: they are not deployed, or field-level security hides them (assign the permission set ${PERMISSION_SET}: ${ASSIGN_PERMISSION_SET})`,
    });
  }
  const name = byName.get(NAME_FIELD);
  if (name && name.length < NAME_LENGTH) {
    findings.push({
      object: s.apiName,
      field: NAME_FIELD,
      problem: 'too_short',
      expected: `Text(${NAME_LENGTH})`,
      actual: actualText(name),
      message: `${s.apiName}.Name holds ${name.length} characters, ${NAME_LENGTH} are needed`,
    });
  }
  for (const f of s.fields) findings.push(...fieldFindings(s.apiName, f, byName.get(f.name), hidden));
  return findings;
}
