/** The source's use of absences kept across runs (model/absenceProofs.ts): what holds, what to keep, what to drop. */
import type { AbsenceProofs } from '../model/absenceProofs.js';
import type { ApiRecord, ResourceType } from '../model/apiRecords.js';
import type { ListCoverage } from './coverage.js';

export class KeptAbsence {
  /** Types whose complete scan this run has kept already. */
  private readonly proved = new Set<ResourceType>();

  constructor(private readonly proofs: AbsenceProofs | undefined) {}

  /**
   * Kept as absent by an earlier proof that nothing has named since and that still holds for this
   * id: one made before the proof (up to the highest id a complete scan listed), or named by
   * records made before it (a parent exists before its children).
   */
  holds(type: ResourceType, id: number, namedBefore?: string): boolean {
    const at = this.proofs?.has(type, id);
    if (at === undefined) return false;
    return id <= (this.proofs?.top(type) ?? 0) || (namedBefore !== undefined && Date.parse(namedBefore) <= Date.parse(at));
  }

  /** Records read from the platform, or named by a later change (a webhook, a retry): no kept proof says they are absent. */
  exist(type: ResourceType, ids: readonly number[]): void {
    this.proofs?.dropAll(type, ids);
  }

  seen(type: ResourceType, records: readonly ApiRecord[]): void {
    if (this.proofs !== undefined)
      this.exist(
        type,
        records.map((r) => r.id),
      );
  }

  notFound(type: ResourceType, id: number): void {
    this.proofs?.add(type, id, new Date().toISOString());
  }

  /** A complete scan's proof is kept at once: a stopped run's resume, the next runs and serve use it. */
  scanned(type: ResourceType, coverage: ListCoverage): void {
    if (this.proofs === undefined || this.proved.has(type) || !coverage.complete()) return;
    this.proved.add(type);
    this.proofs.proveScan(type, coverage.ids, new Date().toISOString());
  }
}
