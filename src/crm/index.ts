/** The Salesforce side, for the engine and the CLI. */
export { connectSalesforce, type AuthMethod, type SalesforceSession } from './connection.js';
export { SalesforceSink, mergeByKey, type SinkOptions } from './sink.js';
export { linkRecords, linkFromSalesforce, readParents, parentFieldsToRead, type LinkResult, type MissingParent } from './cascade.js';
export { exportSchema } from './schemaExport.js';
export { checkOrg, type DoctorFinding, type DoctorProblem, type Describer } from './doctor.js';
export { SalesforceError, SalesforceAuthError, ApiLimitError } from './errors.js';
export type { CrmCallCounts, CrmError, CrmRecord, CrmSink, StoredRecord, UpsertOutcome } from './types.js';
