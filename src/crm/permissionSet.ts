/**
 * The permission set deployed with the schema: without field-level security a deployed custom
 * field is invisible to the integration user, and every upsert naming it fails with INVALID_FIELD.
 */
import { SCHEMAS } from '../mapping/schema.js';
import { metadataDoc, type XmlNode } from './metadataXml.js';
import { LOG_SCHEMAS } from './syncLogSchema.js';

export const PERMISSION_SET = 'Svc_Sync_Integration';
const PERMISSION_SET_LABEL = 'Svc Sync Integration';
export const ASSIGN_PERMISSION_SET = `sf org assign permset --name ${PERMISSION_SET}`;

/**
 * Salesforce refuses a fieldPermissions entry for a required field ("You cannot deploy to a
 * required field"): required fields are visible and editable to everyone with object access.
 * Master-detail, formula, roll-up and auto-number fields cannot take one either (or not an
 * editable one); the schema has none of those kinds, which FieldType would have to name.
 */
export function takesFieldPermission(f: { required?: boolean | undefined }): boolean {
  return !f.required;
}

/** The objects the permission set opens: the eight mirrored ones and the sync log's two. */
const GRANTED: ReadonlyArray<{ apiName: string; fields: ReadonlyArray<{ name: string; required?: boolean | undefined }> }> = [...SCHEMAS, ...LOG_SCHEMAS];

/** `Object.Field` of every field the permission set grants read and edit on. */
function grantedFields(): string[] {
  return GRANTED.flatMap((s) => s.fields.filter(takesFieldPermission).map((f) => `${s.apiName}.${f.name}`));
}

/**
 * Read/create/edit/delete on the eight objects (delete: orphan clean-up removes records) and on the
 * sync log's two (delete: retention removes old records), and
 * read/edit on every field that takes field-level security (and on `extraFields`, the
 * projection's key fields on standard objects, whose object access the org's own licences give). Elements in the order Salesforce
 * retrieves them (alphabetical, entries sorted by name), so a retrieve shows no diff.
 */
export function permissionSetXml(extraFields: readonly string[] = []): string {
  const fields: XmlNode[] = [...grantedFields(), ...extraFields].sort().map((name) => [
    'fieldPermissions',
    [
      ['editable', true],
      ['field', name],
      ['readable', true],
    ],
  ]);
  const objects: XmlNode[] = [...GRANTED]
    .map((s) => s.apiName)
    .sort()
    .map((name) => [
      'objectPermissions',
      [
        ['allowCreate', true],
        ['allowDelete', true],
        ['allowEdit', true],
        ['allowRead', true],
        ['modifyAllRecords', false],
        ['object', name],
        ['viewAllRecords', false],
      ],
    ]);
  return metadataDoc('PermissionSet', [
    ['description', 'Lets the svc-sync integration user read and write the eight mirrored objects, the sync log and their fields.'],
    ...fields,
    ['hasActivationRequired', false],
    ['label', PERMISSION_SET_LABEL],
    ...objects,
    // The sync log's tabs, shown in the App Launcher of whoever has the permission set.
    ...LOG_SCHEMAS.map((s): XmlNode => [
      'tabSettings',
      [
        ['tab', s.apiName],
        ['visibility', 'Visible'],
      ],
    ]),
  ]);
}
