import type * as HtmlToText from 'html-to-text';
import type { HtmlToTextOptions } from 'html-to-text';
import { lazyModule } from '../model/lazyModule.js';

const htmlToText = lazyModule<typeof HtmlToText>('html-to-text');

const BLOCKS = [
  'address',
  'article',
  'aside',
  'blockquote',
  'dd',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'tr',
  'ul',
];

/**
 * "Tags stripped" means exactly that: html-to-text's defaults add things that were never in the
 * text (upper-cased headings, list bullets and numbers, link URLs in brackets, image alt text,
 * wrapping at 80 columns, "> " quote prefixes), so every such formatter is switched off here.
 */
const OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  preserveNewlines: false,
  decodeEntities: true,
  selectors: [
    { selector: 'a', options: { ignoreHref: true, linkBrackets: false } },
    { selector: 'img', format: 'skip' },
    { selector: 'script', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'noscript', format: 'skip' },
    { selector: 'template', format: 'skip' },
    // A thematic break separates blocks: a line break, not nothing ("a<hr>b" must not become "ab").
    { selector: 'hr', format: 'lineBreak' },
    ...BLOCKS.map((selector) => ({ selector, format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } })),
    { selector: 'td', format: 'inlineSurround', options: { suffix: ' ' } },
    { selector: 'th', format: 'inlineSurround', options: { suffix: ' ' } },
  ],
};

/** HTML to plain text: text kept as written, blocks on their own lines, spaces collapsed, trimmed. */
export function stripHtml(input: string): string {
  return htmlToText()
    .convert(input, OPTIONS)
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
