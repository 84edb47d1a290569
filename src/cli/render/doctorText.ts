/**
 * Human output of `doctor`: the fix first, then the findings grouped by problem, one line per
 * object for fields that are missing, hidden or read-only (159 findings read in a screen, not
 * 647 lines), and a compact table for the few type mismatches. --json keeps every finding.
 */
import type { DoctorFinding, DoctorProblem } from '../../model/doctorFinding.js';
import { cutCell, grid } from './grid.js';
import { wrap } from './text.js';

const TITLES: Record<DoctorProblem, string> = {
  missing_object: 'Objects missing from the org',
  hidden_fields: 'Objects whose optional fields are all invisible (not deployed, or hidden by field-level security)',
  missing_field: 'Fields missing, or hidden by field-level security',
  not_editable: 'Fields the connected user may read but not write',
  wrong_type: 'Fields of the wrong type',
  too_short: 'Text fields too short',
  too_small: 'Number fields too small',
  wrong_target: 'Lookups to the wrong object',
  not_external_id: 'Fields that must be an external id',
  not_unique: 'Fields that must be unique',
  missing_value: 'Picklist values or record types the gift projection needs',
  wrong_model: 'No donation model to project into (SVC_PROJECTION)',
};

/** Problems listed as one line per object naming its fields; the others get a table. */
const BY_OBJECT: readonly DoctorProblem[] = ['missing_field', 'not_editable', 'not_external_id', 'not_unique'];
const ORDER = Object.keys(TITLES) as DoctorProblem[];

function objectLines(of: DoctorFinding[], columns: number): string[] {
  const byObject = new Map<string, string[]>();
  for (const f of of) byObject.set(f.object, [...(byObject.get(f.object) ?? []), f.field ?? '']);
  const width = Math.max(...[...byObject.keys()].map((o) => o.length));
  return [...byObject].map(([object, fields]) => {
    const head = `  ${object.padEnd(width)}  ${String(fields.length).padStart(3)}: `;
    return head + cutCell(fields.join(', '), Math.max(8, columns - head.length));
  });
}

function groupLines(problem: DoctorProblem, of: DoctorFinding[], columns: number): string[] {
  const out = [wrap(`${TITLES[problem]} (${of.length}):`, columns, '  ')];
  if (BY_OBJECT.includes(problem)) return [...out, ...objectLines(of, columns)];
  if (problem === 'missing_object' || problem === 'hidden_fields') {
    return [
      ...out,
      ...grid(
        ['object', 'expected', 'actual'],
        of.map((f) => [f.object, f.expected, f.actual]),
        { columns: columns - 2 },
      ).map((l) => `  ${l}`),
    ];
  }
  return [
    ...out,
    ...grid(
      ['object', 'field', 'expected', 'actual'],
      of.map((f) => [f.object, f.field ?? '', f.expected, f.actual]),
      { columns: columns - 2 },
    ).map((l) => `  ${l}`),
  ];
}

/** "what: command" as the what, then the command on its own line, whole, to copy and paste. */
function actionLines(action: string, n: number, columns: number): string[] {
  const at = action.indexOf(': ');
  const [what, command] = at < 0 ? [action, ''] : [action.slice(0, at), action.slice(at + 2)];
  const lines = wrap(`${n}. ${what}${command ? ':' : ''}`, columns - 2, '   ')
    .split('\n')
    .map((l) => `  ${l}`);
  return command ? [...lines, `     ${command}`] : lines;
}

/** The org part of doctor's report: the fix, then the problems by kind. */
export function renderDoctorFindings(findings: readonly DoctorFinding[], actions: readonly string[], columns: number): string[] {
  if (findings.length === 0) return ['Salesforce org: every object and field is in place'];
  const out = [`Salesforce org: ${findings.length} problem(s). To fix, run in this order:`];
  actions.forEach((a, i) => out.push(...actionLines(a, i + 1, columns)));
  for (const problem of ORDER) {
    const of = findings.filter((f) => f.problem === problem);
    if (of.length > 0) out.push('', ...groupLines(problem, of, columns));
  }
  // A problem this list does not know yet still shows, as a table of its own.
  const other = findings.filter((f) => !(ORDER as readonly string[]).includes(f.problem));
  if (other.length > 0)
    out.push(
      '',
      `Other problems (${other.length}):`,
      ...grid(
        ['object', 'field', 'problem', 'actual'],
        other.map((f) => [f.object, f.field ?? '', f.problem, f.actual]),
        { columns: columns - 2 },
      ).map((l) => `  ${l}`),
    );
  out.push('', wrap('Every finding with its message: svc-sync doctor --json', columns));
  return out;
}
