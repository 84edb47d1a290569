/** The run log's error records and their key field, from its schema: `keys qualify` moves a bare one with the records'. */
import { ERROR_OBJECT, LOG_SCHEMAS } from './syncLogSchema.js';

export interface LogKeys {
  object: typeof ERROR_OBJECT;
  fields: Array<{ name: string; length: number }>;
  /** Only the records with a key (a fixed condition, no input). */
  where: string;
}

export function errorLogKeys(): LogKeys {
  const schema = LOG_SCHEMAS.find((x) => x.apiName === ERROR_OBJECT);
  const key = schema?.fields.find((f) => f.name === schema.keyField);
  if (schema === undefined || key?.type.kind !== 'text') throw new Error('the run log has no error key field');
  return { object: ERROR_OBJECT, fields: [{ name: key.name, length: key.type.length }], where: `${key.name} != null` };
}
