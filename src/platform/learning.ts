/** What the platform source learns with, and small readers of record values it compares. */
import type { ResourceType } from '../model/apiRecords.js';
import type { IncrementalMode } from '../config/settings.js';
import type { AbsenceProofs } from '../model/absenceProofs.js';
import type { PlatformProfile } from '../model/platformProfile.js';

/** How the source learns the platform's list behaviour (see model/platformProfile.ts). */
export interface LearnOptions {
  /** The top-level keys the mapping reads of a record of the type: what a partial list page would lack. */
  keysRead?: ((type: ResourceType) => readonly string[]) | undefined;
  /** What an earlier run learned (used when it is for this base URL and fresh). */
  profile?: PlatformProfile | undefined;
  /** That profile was learned by this process (serve's earlier batch): its claims need no confirming. */
  learnedHere?: boolean | undefined;
  /** Each collection has a verification budget of its own pages, not a share of the run's (doctor probes one page of each). */
  sampleEach?: boolean | undefined;
  /** Told once per thing learned, as a line for a person. */
  onLearn?: ((text: string) => void) | undefined;
  /** What an incremental scan reads of a collection whose lists ignore updated_after (SVC_INCREMENTAL; default exact). */
  incremental?: IncrementalMode | undefined;
  /** Told whenever the profile changes (to keep it at once: a killed run must not pay for it again). */
  onProfile?: ((profile: PlatformProfile) => void) | undefined;
  /** Absences proven by earlier runs (and kept for later ones): a parent proven absent costs no request. */
  proofs?: AbsenceProofs | undefined;
}

export const timeOf = (value: unknown): number => (typeof value === 'string' ? Date.parse(value) : NaN);
/** A record's own key, read without assuming its type's shape. */
export const valueAt = (record: object, key: string): unknown => (Object.hasOwn(record, key) ? (record as { [k: string]: unknown })[key] : undefined);
