/**
 * `--report FILE`: every per-record outcome as CSV, streamed as the run goes, for follow-up. Each
 * row goes through the command's masker (a platform error may quote a secret), as stdout does.
 */
import fs from 'node:fs';
import type { RecordOutcome } from '../../model/outcomes.js';

const cell = (v: string): string => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

export class CsvReport {
  private readonly fd: number;

  constructor(
    readonly file: string,
    private readonly mask: (text: string) => string,
  ) {
    this.fd = fs.openSync(file, 'w');
    fs.writeSync(this.fd, 'object,key,action,changed_fields,reason,error_code,error_message,warnings\n');
  }

  write(o: RecordOutcome): void {
    const row = [o.object, o.key, o.action, Object.keys(o.changes ?? {}).join(' '), o.reason ?? '', o.error?.code ?? '', o.error?.message ?? '', (o.warnings ?? []).join(' | ')];
    fs.writeSync(this.fd, `${this.mask(row.map(cell).join(','))}\n`);
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}
