/** The mapping context: what a schema source path (record.*, user.*, consent.* ...) reads from. */
import type { ApiConsent } from '../model/apiRecords.js';
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
  const is = (v: unknown, want: string): boolean => typeof v === 'string' && v.trim().toLowerCase() === want;
  return (consents as ApiConsent[]).find((c) => is(c?.consent_status, 'granted') && is(c?.consent_type, type));
}
