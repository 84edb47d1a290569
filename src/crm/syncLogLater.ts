/**
 * The sync log's fields added after its first release (SvcConnection__c, SvcSiteId__c: SITES.md
 * decision 5). An org set up before lacks them, and a run must not fail over its log: the writer
 * learns it from the org's refusal, writes without them and says how to add them (`doctor` names
 * them too). What it learned holds for the Salesforce connection it learned it on.
 */
import type { CrmRecord } from '../model/crmRecords.js';
import { CONNECTION_FIELD, ERROR_OBJECT, LATER_FIELDS, RUN_OBJECT, SITE_FIELD } from './syncLogSchema.js';

type LogObject = typeof RUN_OBJECT | typeof ERROR_OBJECT;

/** The connection and site a run record names; absent values are not written (an implicit connection has no name). */
export interface RunSource {
  connection?: string | undefined;
  siteId?: string | undefined;
}

/** The record without the later fields of its object. */
export function withoutLater(object: LogObject, record: CrmRecord): CrmRecord {
  const out = { ...record };
  for (const f of LATER_FIELDS[object]) delete out[f];
  return out;
}

/** The org's refusal names one of the object's later fields (`No such column 'SvcSiteId__c' on ...`). */
export const laterFieldsNamed = (object: LogObject, message: string): boolean => LATER_FIELDS[object].some((f) => message.includes(f));

/** The run record's fields that name where it came from, only those known. */
export function sourceFields(source: RunSource): CrmRecord {
  return {
    ...(source.connection === undefined ? {} : { [CONNECTION_FIELD]: source.connection.slice(0, 80) }),
    ...(source.siteId === undefined ? {} : { [SITE_FIELD]: source.siteId.slice(0, 20) }),
  };
}

/** What one Salesforce connection (its api object) learned: the log objects that lack the later fields. */
export class LogFieldsKnown {
  private static readonly byApi = new WeakMap<object, LogFieldsKnown>();
  private readonly lack = new Set<LogObject>();
  private readonly fresh: string[] = [];

  static of(api: object): LogFieldsKnown {
    let known = LogFieldsKnown.byApi.get(api);
    if (known === undefined) LogFieldsKnown.byApi.set(api, (known = new LogFieldsKnown()));
    return known;
  }

  lacks(object: LogObject): boolean {
    return this.lack.has(object);
  }

  /** The object lacks its later fields: noted (said once), then `resend` without them. */
  async lacking<T>(object: LogObject, resend: () => Promise<T>): Promise<T> {
    if (!this.lack.has(object)) this.fresh.push(...LATER_FIELDS[object].map((f) => `${object}.${f}`));
    this.lack.add(object);
    return resend();
  }

  /** Fields learned missing since the last ask (each said once per connection). */
  found(): string[] {
    return this.fresh.splice(0);
  }
}
