/** Salesforce Metadata API XML, as `sf project retrieve` writes it: four-space indent, one element a line. */

const NS = 'http://soap.sforce.com/2006/04/metadata';

export type XmlNode = [string, string | number | boolean | XmlNode[]];

function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function render(nodes: XmlNode[], indent: string): string {
  return nodes.map(([tag, v]) => (Array.isArray(v) ? `${indent}<${tag}>\n${render(v, indent + '    ')}${indent}</${tag}>\n` : `${indent}<${tag}>${xmlEscape(String(v))}</${tag}>\n`)).join('');
}

export function metadataDoc(root: string, nodes: XmlNode[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="${NS}">\n${render(nodes, '    ')}</${root}>\n`;
}
