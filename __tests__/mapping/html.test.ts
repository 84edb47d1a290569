/**
 * stripHtml (html-to-text configured so that "tags stripped" means exactly that), SPEC 1.1 HTML
 * rule and issue 2 item 4: one test per property of the plain text.
 */
import { describe, expect, it } from '@jest/globals';
import { stripHtml } from '../../src/mapping/html.js';

describe('stripHtml', () => {
  it('decodes entities (named, numeric, non-breaking space)', () => {
    expect(stripHtml('Caf&eacute; &amp; bar &lt;b&gt; &#8364;5 &#x263A; &quot;q&quot; &#39;s&#39;')).toBe('Café & bar <b> €5 ☺ "q" \'s\'');
    expect(stripHtml('a&nbsp;&nbsp;&nbsp;b')).toBe('a b');
  });

  it('drops script and style content', () => {
    expect(stripHtml('<script type="text/javascript">alert("x")</script>Text<style>p { color: red }</style> after')).toBe('Text after');
    expect(stripHtml('<noscript>enable JS</noscript>Kept')).toBe('Kept');
  });

  it('keeps headings as written (no upper-casing)', () => {
    expect(stripHtml('<h1>Big Title</h1><h2>Sub title</h2><h6>small</h6>')).toBe('Big Title\nSub title\nsmall');
  });

  it('adds no bullets or numbers to list items', () => {
    expect(stripHtml('<ul><li>one</li><li>two</li></ul><ol><li>first</li><li>second</li></ol>')).toBe('one\ntwo\nfirst\nsecond');
  });

  it('adds no link URLs and no image alt text', () => {
    expect(stripHtml('Go to <a href="https://example.org/page">the page</a> <img src="x.png" alt="A picture"> now')).toBe('Go to the page now');
    expect(stripHtml('<a href="mailto:a@b.c">mail us</a>')).toBe('mail us');
  });

  it('does not wrap a long line', () => {
    const line = Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ');
    expect(line.length).toBeGreaterThan(300);
    expect(stripHtml(`<p>${line}</p>`)).toBe(line);
  });

  it('puts block elements on separate lines', () => {
    expect(stripHtml('<p>one</p><p>two</p><div>three</div><blockquote>four</blockquote><section>five</section>')).toBe('one\ntwo\nthree\nfour\nfive');
    expect(stripHtml('line1<br>line2')).toBe('line1\nline2');
  });

  it('adds no "> " prefix to quotes', () => {
    expect(stripHtml('<blockquote>said</blockquote>')).toBe('said');
  });

  it('separates the text around a horizontal rule instead of gluing it', () => {
    expect(stripHtml('before<hr>after')).toBe('before\nafter');
    // between two blocks the rule is a line break of its own, like a <br>: one empty line
    expect(stripHtml('<p>one</p><hr/><p>two</p>')).toBe('one\n\ntwo');
    expect(stripHtml('<p>one</p><br><p>two</p>')).toBe('one\n\ntwo');
  });

  it('collapses runs of spaces, tabs and newlines in the text, and trims', () => {
    expect(stripHtml('  <p>  a    b \t\t c  </p>\n\n  ')).toBe('a b c');
    expect(stripHtml('plain\n\n\ntext   here')).toBe('plain text here');
  });

  it('keeps at most one empty line between blocks', () => {
    expect(stripHtml('a<br><br><br><br><br>b')).toBe('a\n\nb');
  });

  it('keeps table cells apart on one line per row', () => {
    expect(stripHtml('<table><tr><th>Name</th><th>Amount</th></tr><tr><td>Jan</td><td>10</td></tr></table>')).toBe('Name Amount\nJan 10');
  });

  it('keeps inline formatting text as written', () => {
    expect(stripHtml('<b>bold</b> and <i>italic</i> and <span class="x">span</span>')).toBe('bold and italic and span');
  });

  it('returns plain text unchanged (apart from whitespace)', () => {
    expect(stripHtml('Just text, 100% plain; a < b > c')).toBe('Just text, 100% plain; a < b > c');
  });

  it('returns an empty string for markup without text', () => {
    expect(stripHtml('<p></p><script>x</script><img src="a.png" alt="alt">')).toBe('');
  });
});
