/** A strict little XML reader for the metadata tests. */

export interface XmlNode {
  tag: string;
  children: XmlNode[];
  text: string;
}

/** A strict little XML reader: balanced tags, valid entities, one root, no stray text. Throws otherwise. */
export function parseXml(src: string): XmlNode {
  let s = src.replace(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n/, '');
  const stack: XmlNode[] = [];
  let root: XmlNode | undefined;
  const re = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w:]+="[^"<]*")*)\s*>|([^<]+)/gy;
  let m: RegExpExecArray | null;
  while (s.length && (m = re.exec(s))) {
    if (m[4] !== undefined) {
      const text = m[4];
      if (/&(?!(amp|lt|gt|quot|apos);)/.test(text)) throw new Error(`bad entity in ${text}`);
      if (!stack.length && text.trim()) throw new Error('text outside the root');
      if (stack.length) stack[stack.length - 1].text += text;
    } else if (m[1]) {
      const open = stack.pop();
      if (!open || open.tag !== m[2]) throw new Error(`</${m[2]}> closes <${open?.tag}>`);
      if (!stack.length) root = open;
    } else {
      if (root) throw new Error('second root');
      const node: XmlNode = { tag: m[2], children: [], text: '' };
      stack[stack.length - 1]?.children.push(node);
      stack.push(node);
    }
    if (re.lastIndex === s.length) s = '';
  }
  if (s.length && re.lastIndex !== s.length) throw new Error(`unparsable XML at ${re.lastIndex}`);
  if (stack.length || !root) throw new Error('unclosed tags');
  return root;
}

export const child = (n: XmlNode, tag: string): string | undefined => n.children.find((c) => c.tag === tag)?.text;

/** Every direct child with this tag. */
export const children = (n: XmlNode, tag: string): XmlNode[] => n.children.filter((c) => c.tag === tag);
