/**
 * Why a webhook was answered 200 and recorded ignored, as a fixed word for the metrics label: the
 * reason itself names sites, types and connections a sender chooses, which must not grow the
 * label set. The words follow the reasons routing.ts and sync/webhookEvents.ts give.
 */
type IgnoreKind = 'no_site_id' | 'other_site' | 'application' | 'event_type' | 'object_type' | 'other';

const KINDS: ReadonlyArray<[RegExp, IgnoreKind]> = [
  [/^no site_id\b/, 'no_site_id'],
  [/^site \S+ is (not|no) /, 'other_site'],
  [/^application .* is not synced$/, 'application'],
  [/^event .* (is not handled|has no effect on mirrored objects)$/, 'event_type'],
  [/^(object type|questions of) .* not mirrored$/, 'object_type'],
];

export function ignoreKind(reason: string): IgnoreKind {
  return KINDS.find(([re]) => re.test(reason))?.[1] ?? 'other';
}
