/** The mapping context: what a schema source path (record.*, user.*, consent.* ...) reads from. */
import type { ApiConsent, ApiNewsletterSubscription, ApiUser } from '../model/apiRecords.js';
import { isBlank } from './convert.js';

export type Context = Record<string, unknown>;

export function getPath(ctx: Context, path: string): unknown {
  let cur: unknown = ctx;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Fills `{path}` parts of a template; undefined when any part is blank. */
export function fillTemplate(template: string, ctx: Context): string | undefined {
  let missing = false;
  const out = template.replace(/\{([^}]+)\}/g, (_m, path: string) => {
    const v = getPath(ctx, path);
    if (isBlank(v) || (typeof v !== 'string' && typeof v !== 'number')) {
      missing = true;
      return '';
    }
    return String(v);
  });
  return missing ? undefined : out;
}

export const isTemplate = (source: string): boolean => source.includes('{');

/** SPEC 1.1: keep granted consents, then the first of the relevant type. */
export function selectConsent(consents: unknown, type: string): ApiConsent | undefined {
  if (!Array.isArray(consents)) return undefined;
  return (consents as ApiConsent[]).find((c) => c?.consent_status === 'granted' && c?.consent_type === type);
}

/** A positive integer id, from a number or a numeric string; anything else is "no id". */
export function asId(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * SPEC.md links a subscription by entity_type + entity_id; the real API by project_id /
 * segment_id. Both become project_id / segment_id, the entity form winning when both are given.
 */
export function normaliseSubscription(record: ApiNewsletterSubscription): ApiNewsletterSubscription {
  const kind = typeof record.entity_type === 'string' ? record.entity_type.trim().toLowerCase() : '';
  const id = asId(record.entity_id);
  if (id === undefined || (kind !== 'project' && kind !== 'segment')) return record;
  return kind === 'project' ? { ...record, project_id: id, segment_id: undefined } : { ...record, segment_id: id, project_id: undefined };
}

export type { ApiUser };
