/**
 * What `doctor` finds in the org: written by crm/ (describe), rendered by cli/. One shape here, so
 * a new kind of problem is named once and the renderer's table of titles must cover it.
 */
export type DoctorProblem =
  | 'missing_object'
  | 'missing_field'
  /** Every optional field of an object is invisible: not deployed, or hidden by field-level security. */
  | 'hidden_fields'
  /** The connected user may read the field but not create or update it. */
  | 'not_editable'
  | 'wrong_type'
  | 'too_short'
  | 'too_small'
  | 'wrong_target'
  | 'not_external_id'
  | 'not_unique'
  /** SVC_PROJECTION: a picklist value or record type the projection sends is not active. */
  | 'missing_value'
  /** SVC_PROJECTION: the org has no Nonprofit Cloud, or NPSP next to it. */
  | 'wrong_model';

export interface DoctorFinding {
  object: string;
  field?: string;
  problem: DoctorProblem;
  expected: string;
  actual: string;
  message: string;
}
