/**
 * A platform object's identity on both sides: its ref ({type, id}) and its key, the SvcId__c
 * external id Salesforce holds it under. The key formats live here, and the schema reads them, so
 * every door (a command line, a file, the webhook queue) can turn a ref into a key and back.
 */
import { OBJECT_TYPES, type ObjectRef, type ObjectType, type SyncableType } from './objects.js';

/** The external id field every mirrored object is upserted on. */
export const KEY_FIELD = 'SvcId__c';

/** SvcId__c per type: `{path}` parts are read from the mapping context (a question's from its action too). */
export const KEY_TEMPLATES: Readonly<Record<ObjectType, string>> = {
  segment: 'Segment_{record.id}',
  project: 'Project_{record.id}',
  team: 'Team_{record.id}',
  company: 'Company_{record.id}',
  action: 'Action_{record.id}',
  question: 'ActionQuestion_{action.id}.{record.id}',
  donation: 'Donation_{record.id}',
  newsletter_subscription: 'NewsletterSubscription_{record.id}',
};

const fill = (template: string, ids: Record<string, number>): string => template.replace(/\{([^}]+)\}/g, (_m, path: string) => String(ids[path]));

/** Key of a platform object by type and id (questions need their action: use questionKey). */
export function keyFor(type: SyncableType, id: number): string {
  return fill(KEY_TEMPLATES[type], { 'record.id': id });
}

export function questionKey(actionId: number, questionId: number): string {
  return fill(KEY_TEMPLATES.question, { 'action.id': actionId, 'record.id': questionId });
}

/**
 * The platform object a key stands for: the inverse of keyFor. A question's key gives its
 * action, since questions are synced through their action.
 */
export function refOfKey(key: string): ObjectRef | undefined {
  return parseKey(key)?.ref;
}

/**
 * The ref a key names, only when the key is exactly as svc-sync writes it: its case, no leading
 * zero, ids that are whole and safe. Anything else (`Donation_0100006`, `donation_7`) is a key no
 * record of the site has, made by hand.
 */
export function canonicalRefOfKey(key: string): ObjectRef | undefined {
  const parsed = parseKey(key);
  if (parsed === undefined || !parsed.ids.every((id) => Number.isSafeInteger(id) && id > 0)) return undefined;
  return fill(KEY_TEMPLATES[parsed.type], parsed.byPath) === key ? parsed.ref : undefined;
}

function parseKey(key: string): { type: ObjectType; ref: ObjectRef; ids: number[]; byPath: Record<string, number> } | undefined {
  for (const type of OBJECT_TYPES) {
    const paths: string[] = [];
    const pattern = KEY_TEMPLATES[type]
      .split(/(\{[^}]+\})/)
      .map((part) => {
        if (!part.startsWith('{')) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
        paths.push(part.slice(1, -1));
        return '(\\d+)';
      })
      .join('');
    const m = new RegExp(`^${pattern}$`).exec(key);
    if (!m) continue;
    const ids = paths.map((_, i) => Number(m[i + 1]));
    const byPath = Object.fromEntries(paths.map((p, i) => [p, ids[i]!]));
    const idOf = (path: string): number => byPath[path] ?? NaN;
    const ref: ObjectRef = type === 'question' ? { type: 'action', id: idOf('action.id') } : { type, id: idOf('record.id') };
    return { type, ref, ids, byPath };
  }
  return undefined;
}

/** A positive whole id, from a number or a decimal string (spaces around allowed); anything else is "no id". */
export function parsePositiveId(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}
