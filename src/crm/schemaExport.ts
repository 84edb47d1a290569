/**
 * The eight objects, their fields and the integration permission set as Salesforce metadata in
 * SFDX source format, generated from schema.ts. sfdxProject.ts puts them on disk.
 */
import type { FieldDef } from '../mapping/fieldTypes.js';
import { SCHEMAS, schemaByApiName, type ObjectSchema } from '../mapping/schema.js';
import { metadataDoc as doc, type XmlNode as Node } from './metadataXml.js';
import { PERMISSION_SET, permissionSetXml } from './permissionSet.js';

function objectXml(s: ObjectSchema): string {
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
function relationship(child: ObjectSchema): { name: string; label: string } {
  return { name: `${child.apiName.replace(/__c$/, '')}s`, label: child.pluralLabel };
}

function fieldXml(s: ObjectSchema, f: FieldDef): string {
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
    case 'lookup': {
      if (!schemaByApiName(t.to)) throw new Error(`${s.apiName}.${f.name} looks up an unknown object ${t.to}`);
      const rel = relationship(s);
      nodes.push(['deleteConstraint', 'SetNull'], ['referenceTo', t.to], ['relationshipLabel', rel.label], ['relationshipName', rel.name], ['required', false], ['type', 'Lookup']);
      break;
    }
  }
  return doc('CustomField', nodes);
}

/** One file of SFDX source: its path under the package directory (forward slashes) and its text. */
export interface SourceFile {
  path: string;
  content: string;
}

/** objects/<Object>/<Object>.object-meta.xml, objects/<Object>/fields/<Field>.field-meta.xml, the permission set. */
export function schemaSource(schemas: readonly ObjectSchema[] = SCHEMAS): SourceFile[] {
  const files: SourceFile[] = [];
  for (const s of schemas) {
    files.push({ path: `objects/${s.apiName}/${s.apiName}.object-meta.xml`, content: objectXml(s) });
    for (const f of s.fields) files.push({ path: `objects/${s.apiName}/fields/${f.name}.field-meta.xml`, content: fieldXml(s, f) });
  }
  files.push({ path: `permissionsets/${PERMISSION_SET}.permissionset-meta.xml`, content: permissionSetXml(schemas) });
  return files;
}
