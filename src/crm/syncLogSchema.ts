/**
 * The sync log's two objects as data (issue 30): one run record per command run or serve batch,
 * one error record per failing mirrored record. Their API names are a public interface (admins
 * build reports on them). The metadata export, the writer, `doctor` and the emulator read this.
 */
import type { FieldType } from '../mapping/fieldTypes.js';
import { checkbox, dateTime, longText, number, text } from '../mapping/fieldTypes.js';

export const RUN_OBJECT = 'Svc_SyncRun__c';
export const ERROR_OBJECT = 'Svc_SyncError__c';
type LogObjectName = typeof RUN_OBJECT | typeof ERROR_OBJECT;
export const LOG_OBJECTS: readonly LogObjectName[] = [RUN_OBJECT, ERROR_OBJECT];

/** The commands that put the log's objects and fields in the org, said when they are missing. */
export const DEPLOY_LOG = 'svc-sync schema --project svc-org && cd svc-org && sf project deploy start';

export const RUN_KEY = 'RunKey__c';
export const ERROR_KEY = 'Key__c';

/** Which connection and site wrote a record (SITES.md decision 5): one org may hold several sites' runs. */
export const CONNECTION_FIELD = 'SvcConnection__c';
export const SITE_FIELD = 'SvcSiteId__c';
/**
 * Fields added after the log's first release: an org set up before lacks them. The writer then
 * writes without them and says how to add them; it never fails a run over them.
 */
export const LATER_FIELDS: Readonly<Record<LogObjectName, readonly string[]>> = { [RUN_OBJECT]: [CONNECTION_FIELD, SITE_FIELD], [ERROR_OBJECT]: [SITE_FIELD] };

const OUTCOMES = ['Succeeded', 'Partial', 'Failed', 'Interrupted', 'Refused'] as const;
export const ERROR_STATUSES = ['Open', 'Resolved', 'Ignored'] as const;
export type ErrorStatus = (typeof ERROR_STATUSES)[number];

/** A field type of the org beyond the mirror's: a restricted picklist, a lookup to any object. */
export type OrgFieldType = Exclude<FieldType, { kind: 'lookup' }> | { kind: 'lookup'; to: string } | { kind: 'picklist'; values: readonly string[] };

export interface OrgFieldDef {
  name: string;
  label: string;
  type: OrgFieldType;
  externalId?: boolean;
  unique?: boolean;
  required?: boolean;
}

interface LogObjectSchema {
  apiName: LogObjectName;
  label: string;
  pluralLabel: string;
  /** The external id the writer upserts on. */
  keyField: string;
  /** The custom tab's motif (Salesforce's built-in tab styles). */
  tabMotif: string;
  fields: OrgFieldDef[];
}

const f = (name: string, label: string, type: OrgFieldType, extra: Partial<OrgFieldDef> = {}): OrgFieldDef => ({ name, label, type, ...extra });
const picklist = (values: readonly string[]): OrgFieldType => ({ kind: 'picklist', values });
const count = (name: string, label: string): OrgFieldDef => f(name, label, number(18, 0));

const RUN_SCHEMA: LogObjectSchema = {
  apiName: RUN_OBJECT,
  label: 'Svc Sync Run',
  pluralLabel: 'Svc Sync Runs',
  keyField: RUN_KEY,
  tabMotif: 'Custom67: Gears',
  fields: [
    f(RUN_KEY, 'Run Key', text(80), { externalId: true, unique: true }),
    f('Command__c', 'Command', text(40)),
    f(CONNECTION_FIELD, 'Connection', text(80)),
    f(SITE_FIELD, 'Site Id', text(20)),
    f('StartedAt__c', 'Started At', dateTime()),
    f('FinishedAt__c', 'Finished At', dateTime()),
    f('Outcome__c', 'Outcome', picklist(OUTCOMES)),
    count('Inserted__c', 'Inserted'),
    count('Updated__c', 'Updated'),
    count('Unchanged__c', 'Unchanged'),
    count('Failed__c', 'Failed'),
    count('Deleted__c', 'Deleted'),
    count('PlatformRequests__c', 'Platform Requests'),
    count('SalesforceCalls__c', 'Salesforce Calls'),
    f('Summary__c', 'Summary', longText()),
  ],
};

const ERROR_SCHEMA: LogObjectSchema = {
  apiName: ERROR_OBJECT,
  label: 'Svc Sync Error',
  pluralLabel: 'Svc Sync Errors',
  keyField: ERROR_KEY,
  tabMotif: 'Custom53: Bell',
  fields: [
    f(ERROR_KEY, 'Key', text(120), { externalId: true, unique: true }),
    f('ObjectName__c', 'Object Name', text(40)),
    f('StatusCode__c', 'Status Code', text(80)),
    f('Message__c', 'Message', text(255)),
    f('Fields__c', 'Fields', text(255)),
    count('Attempts__c', 'Attempts'),
    f('FirstFailedAt__c', 'First Failed At', dateTime()),
    f('LastFailedAt__c', 'Last Failed At', dateTime()),
    f('ResolvedAt__c', 'Resolved At', dateTime()),
    f('Status__c', 'Status', picklist(ERROR_STATUSES)),
    f('RetryRequested__c', 'Retry Requested', checkbox()),
    f('LastRun__c', 'Last Run', { kind: 'lookup', to: RUN_OBJECT }),
    f(SITE_FIELD, 'Site Id', text(20)),
  ],
};

export const LOG_SCHEMAS: readonly LogObjectSchema[] = [RUN_SCHEMA, ERROR_SCHEMA];

/** The relationship name of a lookup field (LastRun__c -> LastRun__r). */
export const relationshipOf = (field: string): string => field.replace(/__c$/, '__r');
