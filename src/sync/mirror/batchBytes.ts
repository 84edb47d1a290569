/**
 * A batch of records closes at `--batch-size` records or at this much text, whichever comes
 * first. A batch lives three times over while it is written (the API records, the mapped CRM
 * records, and on a later run the same records read back from Salesforce), so 5,000 fundraising
 * pages with 10-30 KB of HTML each would hold hundreds of MB; 5,000 ordinary records hold a few.
 */
export const BATCH_TEXT_BYTES = 8 * 1024 * 1024;

export { textSize } from '../../model/textSize.js';
