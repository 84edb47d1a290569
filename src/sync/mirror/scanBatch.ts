/**
 * The pages of a scan read but not yet written: one batch, closed at `--batch-size` records or
 * at BATCH_TEXT_BYTES of text, and the last page it holds (saved as done once it is written).
 */
import { BATCH_TEXT_BYTES, textSize } from './batchBytes.js';

/** Pages a scan takes after a stop: those read ahead already (a source that reads none ahead ends sooner). */
const READ_AHEAD_AT_STOP = 4;

/** A scan's next page; undefined when the run was stopped and the page was abandoned. */
export async function nextPage<T>(pages: AsyncIterator<T>, stop: AbortSignal | undefined): Promise<IteratorResult<T> | undefined> {
  try {
    return await pages.next();
  } catch (error) {
    if (stop?.aborted === true) return undefined;
    throw error;
  }
}

export class ScanBatch<R> {
  private records: R[] = [];
  private bytes = 0;
  private last: number | undefined;
  /** Records scanned so far (the progress line's figure). */
  scanned = 0;
  private afterStop = 0;

  /** A page taken after the stop: whether it is past those read ahead (the scan ends there). */
  pastStop(): boolean {
    return ++this.afterStop > READ_AHEAD_AT_STOP;
  }

  /** `text`: the page's textSize when its source measured it already. */
  add(records: readonly R[], page: number, text = textSize(records)): void {
    this.records.push(...records);
    this.bytes += text;
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
