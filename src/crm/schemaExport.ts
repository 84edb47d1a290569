/**
 * The eight objects, their fields and the integration permission set as Salesforce metadata in
 * SFDX source format, generated from schema.ts, with the sync log's two objects (syncLogSchema.ts),
 * their tabs and list views. sfdxProject.ts puts them on disk.
 */
import { SCHEMAS, schemaByApiName } from '../mapping/schema.js';
import { metadataDoc as doc, type XmlNode as Node } from './metadataXml.js';
import { PERMISSION_SET, permissionSetXml } from './permissionSet.js';
import { LOG_SCHEMAS, type OrgFieldDef } from './syncLogSchema.js';
import { listViewsSource } from './syncLogViews.js';
import { NPC_KEY_FIELDS, NPSP_KEY_FIELDS } from '../mapping/gifts/keyFields.js';

/** The donation model a schema export adds the projection's key fields for (PROJECTION.md §0). */
export type ProjectionModel = 'npc' | 'npsp';

/** What the export needs of an object, mirrored or of the sync log. */
interface ExportedObject {
  apiName: string;
  label: string;
  pluralLabel: string;
  fields: readonly OrgFieldDef[];
}

const knownObject = (name: string): boolean => schemaByApiName(name) !== undefined || LOG_SCHEMAS.some((s) => s.apiName === name);

function objectXml(s: ExportedObject): string {
  return doc('CustomObject', [
    ['deploymentStatus', 'Deployed'],
    ['enableActivities', false],
    ['enableHistory', false],
    ['enableReports', true],
    ['label', s.label],
    [
      'nameField',
      [
        ['label', `${s.label} Name`],
        ['type', 'Text'],
      ],
    ],
    ['pluralLabel', s.pluralLabel],
    ['sharingModel', 'ReadWrite'],
  ]);
}

/** Child relationship name, unique per parent object: the child object's plural API-style name. */
function relationship(child: ExportedObject): { name: string; label: string } {
  return { name: `${child.apiName.replace(/__c$/, '')}s`, label: child.pluralLabel };
}

function fieldXml(s: ExportedObject, f: OrgFieldDef): string {
  const nodes: Node[] = [['fullName', f.name]];
  const t = f.type;
  if (t.kind === 'text' || t.kind === 'number') nodes.push(['externalId', !!f.externalId]);
  nodes.push(['label', f.label]);
  switch (t.kind) {
    case 'text':
      nodes.push(['length', t.length], ['required', !!f.required], ['type', 'Text'], ['unique', !!f.unique]);
      if (f.unique) nodes.push(['caseSensitive', false]);
      break;
    case 'longtext':
      nodes.push(['length', t.length], ['type', 'LongTextArea'], ['visibleLines', 3]);
      break;
    case 'number':
      nodes.push(['precision', t.precision], ['required', false], ['scale', t.scale], ['type', 'Number'], ['unique', false]);
      break;
    case 'checkbox':
      nodes.push(['defaultValue', t.default], ['type', 'Checkbox']);
      break;
    case 'date':
      nodes.push(['required', false], ['type', 'Date']);
      break;
    case 'datetime':
      nodes.push(['required', false], ['type', 'DateTime']);
      break;
    case 'picklist':
      nodes.push(['required', false], ['type', 'Picklist'], ['valueSet', picklistValues(t.values)]);
      break;
    case 'lookup': {
      if (!knownObject(t.to)) throw new Error(`${s.apiName}.${f.name} looks up an unknown object ${t.to}`);
      const rel = relationship(s);
      nodes.push(['deleteConstraint', 'SetNull'], ['referenceTo', t.to], ['relationshipLabel', rel.label], ['relationshipName', rel.name], ['required', false], ['type', 'Lookup']);
      break;
    }
  }
  return doc('CustomField', nodes);
}

/** A restricted picklist, its first value the default (what a record written without it gets). */
function picklistValues(values: readonly string[]): Node[] {
  return [
    ['restricted', true],
    [
      'valueSetDefinition',
      [
        ['sorted', false],
        ...values.map((v, i): Node => [
          'value',
          [
            ['fullName', v],
            ['default', i === 0],
            ['label', v],
          ],
        ]),
      ],
    ],
  ];
}

/** One file of SFDX source: its path under the package directory (forward slashes) and its text. */
export interface SourceFile {
  path: string;
  content: string;
}

function objectFiles(s: ExportedObject): SourceFile[] {
  return [
    { path: `objects/${s.apiName}/${s.apiName}.object-meta.xml`, content: objectXml(s) },
    ...s.fields.map((f) => ({ path: `objects/${s.apiName}/fields/${f.name}.field-meta.xml`, content: fieldXml(s, f) })),
  ];
}

/** A tab of its own for each sync log object, so admins find the records in the App Launcher. */
function tabXml(motif: string): string {
  return doc('CustomTab', [
    ['customObject', true],
    ['motif', motif],
  ]);
}

/**
 * objects/<Object>/<Object>.object-meta.xml, objects/<Object>/fields/<Field>.field-meta.xml for the
 * eight objects and the sync log's two (with their list views and tabs), and the permission set.
 */
export function schemaSource(projection?: ProjectionModel): SourceFile[] {
  const files: SourceFile[] = SCHEMAS.flatMap(objectFiles);
  for (const s of LOG_SCHEMAS) files.push(...objectFiles(s), { path: `tabs/${s.apiName}.tab-meta.xml`, content: tabXml(s.tabMotif) });
  files.push(...listViewsSource());
  const extra = projection === undefined ? [] : projectionFieldFiles(projection === 'npc' ? NPC_KEY_FIELDS : NPSP_KEY_FIELDS);
  files.push(...extra.map((x) => x.file));
  files.push({ path: `permissionsets/${PERMISSION_SET}.permissionset-meta.xml`, content: permissionSetXml(extra.map((x) => x.grant)) });
  return files;
}

/**
 * The projection's key fields on the model's standard objects (Nonprofit Cloud's, or NPSP's and
 * its managed package's): field files only (the objects are Salesforce's or the package's), each
 * granted read and edit in the permission set. NPSP's slot key is plain text (P9).
 */
function projectionFieldFiles(fields: typeof NPC_KEY_FIELDS): Array<{ file: SourceFile; grant: string }> {
  return fields.map((k) => {
    const def: OrgFieldDef =
      k.type.kind === 'key'
        ? { name: k.field, label: k.label, type: { kind: 'text', length: k.type.length }, externalId: true, unique: true }
        : k.type.kind === 'text'
          ? { name: k.field, label: k.label, type: { kind: 'text', length: k.type.length } }
          : { name: k.field, label: k.label, type: { kind: 'checkbox', default: false } };
    const owner: ExportedObject = { apiName: k.object, label: k.object, pluralLabel: k.object, fields: [def] };
    return { file: { path: `objects/${k.object}/fields/${k.field}.field-meta.xml`, content: fieldXml(owner, def) }, grant: `${k.object}.${k.field}` };
  });
}
