import { textSize } from '../model/textSize.js';

/** List pages a scan reads ahead of the one handed out: as many as may be in flight (4). */
const MAX_AHEAD = 4;
/**
 * The text the pages read ahead may hold. They wait, parsed, while the engine writes its batch: four
 * pages of 100 fundraising pages with 10-30 KB of HTML each are 8-12 MB, a quarter of a heavy site's
 * peak heap; a page of 100 donations is about 100 KB and four of them fit.
 */
const AHEAD_TEXT = 2 * 1024 * 1024;

/** How many pages to read ahead, judged by the text of the last page read (textSize; at least one). */
function pagesAhead(text: number): number {
  return Math.max(1, Math.min(MAX_AHEAD, Math.floor(AHEAD_TEXT / Math.max(1, text))));
}

/** A list page's text (textSize: what a batch counts of it) and the pages to read ahead after it. */
export function readAhead(records: readonly unknown[]): { text: number; ahead: number } {
  const text = textSize(records);
  return { text, ahead: pagesAhead(text) };
}
