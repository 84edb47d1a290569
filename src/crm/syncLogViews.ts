/**
 * The sync log's list views, as SFDX source beside its objects: "Open sync errors" (Status Open)
 * and "Recent runs" (the last seven days). ListView metadata carries no sort order: the columns
 * lead with the time, and the admin docs say to sort by it once (Salesforce keeps that per user).
 */
import { metadataDoc as doc, type XmlNode } from './metadataXml.js';
import { CONNECTION_FIELD, ERROR_OBJECT, RUN_OBJECT, SITE_FIELD } from './syncLogSchema.js';

interface ListView {
  object: string;
  fullName: string;
  label: string;
  columns: string[];
  filters: Array<{ field: string; operation: string; value: string }>;
}

const LIST_VIEWS: readonly ListView[] = [
  {
    object: ERROR_OBJECT,
    fullName: 'Open_sync_errors',
    label: 'Open sync errors',
    columns: ['LastFailedAt__c', 'NAME', SITE_FIELD, 'ObjectName__c', 'StatusCode__c', 'Message__c', 'Fields__c', 'Attempts__c', 'RetryRequested__c'],
    filters: [{ field: 'Status__c', operation: 'equals', value: 'Open' }],
  },
  {
    object: RUN_OBJECT,
    fullName: 'Recent_runs',
    label: 'Recent runs',
    columns: ['FinishedAt__c', 'NAME', 'Command__c', CONNECTION_FIELD, SITE_FIELD, 'Outcome__c', 'Inserted__c', 'Updated__c', 'Unchanged__c', 'Failed__c', 'Deleted__c', 'SalesforceCalls__c'],
    filters: [{ field: 'FinishedAt__c', operation: 'greaterOrEqual', value: 'LAST_N_DAYS:7' }],
  },
];

function listViewXml(v: ListView): string {
  const filters: XmlNode[] = v.filters.map((f) => [
    'filters',
    [
      ['field', f.field],
      ['operation', f.operation],
      ['value', f.value],
    ],
  ]);
  return doc('ListView', [['fullName', v.fullName], ...v.columns.map((c): XmlNode => ['columns', c]), ['filterScope', 'Everything'], ...filters, ['label', v.label]]);
}

/** objects/<Object>/listViews/<Name>.listView-meta.xml for each view. */
export function listViewsSource(): Array<{ path: string; content: string }> {
  return LIST_VIEWS.map((v) => ({ path: `objects/${v.object}/listViews/${v.fullName}.listView-meta.xml`, content: listViewXml(v) }));
}
