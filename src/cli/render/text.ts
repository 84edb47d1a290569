/** Display helpers shared by the tables. */
import type { CrmValue } from '../../model/crmRecords.js';

export const MAX_CELL = 60;

/** Long values shortened for display, one line. */
export function shorten(value: CrmValue | undefined, max = MAX_CELL): string {
  if (value === null || value === undefined || value === '') return '(empty)';
  const s = String(value).replace(/\s+/g, ' ');
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}
