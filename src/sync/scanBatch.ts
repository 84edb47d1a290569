/**
 * The pages of a scan read but not yet written: one batch, closed at `--batch-size` records or
 * at BATCH_TEXT_BYTES of text, and the last page it holds (saved as done once it is written).
 */
import { BATCH_TEXT_BYTES, textSize } from './batchBytes.js';

export class ScanBatch<R> {
  private records: R[] = [];
  private bytes = 0;
  private last: number | undefined;
  /** Records scanned so far (the progress line's figure). */
  scanned = 0;

  add(records: readonly R[], page: number): void {
    this.records.push(...records);
    this.bytes += textSize(records);
    this.scanned += records.length;
    this.last = page;
  }

  full(batchSize: number): boolean {
    return this.records.length >= batchSize || this.bytes >= BATCH_TEXT_BYTES;
  }

  /** The records to write and the last page they come from (undefined: no page since the last take). */
  take(): { records: R[]; last: number | undefined } {
    const out = { records: this.records, last: this.last };
    this.records = [];
    this.bytes = 0;
    this.last = undefined;
    return out;
  }
}
