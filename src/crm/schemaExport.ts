/**
 * `svc-sync schema --out DIR`: the eight objects and their fields as Salesforce metadata in SFDX
 * source format, generated from schema.ts, ready for `sf project deploy start`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FieldDef } from '../mapping/fieldTypes.js';
import { SCHEMAS, schemaByApiName, type ObjectSchema } from '../mapping/schema.js';

const NS = 'http://soap.sforce.com/2006/04/metadata';

export function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

type Node = [string, string | number | boolean | Node[]];

function render(nodes: Node[], indent: string): string {
  return nodes
    .map(([tag, v]) => (Array.isArray(v) ? `${indent}<${tag}>\n${render(v, indent + '    ')}${indent}</${tag}>\n` : `${indent}<${tag}>${xmlEscape(String(v))}</${tag}>\n`))
    .join('');
}

function doc(root: string, nodes: Node[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="${NS}">\n${render(nodes, '    ')}</${root}>\n`;
}

export function objectXml(s: ObjectSchema): string {
  return doc('CustomObject', [
    ['deploymentStatus', 'Deployed'],
    ['enableActivities', false],
    ['enableHistory', false],
    ['enableReports', true],
    ['label', s.label],
    ['nameField', [['label', `${s.label} Name`], ['type', 'Text']]],
    ['pluralLabel', s.pluralLabel],
    ['sharingModel', 'ReadWrite'],
  ]);
}

/** Child relationship name, unique per parent object: the child object's plural API-style name. */
function relationship(child: ObjectSchema): { name: string; label: string } {
  return { name: `${child.apiName.replace(/__c$/, '')}s`, label: child.pluralLabel };
}

export function fieldXml(s: ObjectSchema, f: FieldDef): string {
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

/** Writes objects/<Object>/<Object>.object-meta.xml and fields/<Field>.field-meta.xml; returns the paths written. */
export async function exportSchema(outDir: string): Promise<string[]> {
  const written: string[] = [];
  for (const s of SCHEMAS) {
    const dir = path.join(outDir, 'objects', s.apiName);
    await mkdir(path.join(dir, 'fields'), { recursive: true });
    const objFile = path.join(dir, `${s.apiName}.object-meta.xml`);
    await writeFile(objFile, objectXml(s), 'utf8');
    written.push(objFile);
    for (const f of s.fields) {
      const file = path.join(dir, 'fields', `${f.name}.field-meta.xml`);
      await writeFile(file, fieldXml(s, f), 'utf8');
      written.push(file);
    }
  }
  return written;
}
