/**
 * `--report FILE`: every per-record outcome as CSV, streamed as the run goes, for follow-up. Each
 * row goes through the command's masker (a platform error may quote a secret), as stdout does.
 */
import fs from 'node:fs';
import { ConfigError, messageOf } from '../../model/errors.js';
import type { RecordOutcome } from '../../model/outcomes.js';

/**
 * The --report file opened (`w`: made empty; `a`: only proven writable), or a usage error naming
 * --report (exit 2) before anything runs: a missing folder is the user's input, not a failed run.
 */
export function openReportFile(file: string, flags: 'w' | 'a'): number {
  try {
    return fs.openSync(file, flags);
  } catch (err) {
    throw new ConfigError(`--report ${file}: cannot write there (${(err as NodeJS.ErrnoException).code ?? messageOf(err)})`);
  }
}

const cell = (v: string): string => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

export class CsvReport {
  private readonly fd: number;

  constructor(
    readonly file: string,
    private readonly mask: (text: string) => string,
  ) {
    this.fd = openReportFile(file, 'w');
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
