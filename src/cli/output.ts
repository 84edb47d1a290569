/**
 * What a command prints. With --json, stdout carries exactly one JSON document in the Salesforce
 * CLI's envelope and nothing else; every message goes to stderr. Secrets are redacted from all of it.
 */
export interface OutputOptions {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
}

export class Output {
  constructor(
    readonly opts: OutputOptions,
    readonly redact: (text: string) => string = (t) => t,
  ) {}

  /** Human result text on stdout (not with --json or --quiet). */
  result(text: string): void {
    if (!this.opts.json && !this.opts.quiet) process.stdout.write(`${this.redact(text)}\n`);
  }

  /** Progress and notices on stderr (not with --quiet). */
  info(text: string): void {
    if (!this.opts.quiet) process.stderr.write(`${this.redact(text)}\n`);
  }

  verbose(text: string): void {
    if (this.opts.verbose && !this.opts.quiet) process.stderr.write(`${this.redact(text)}\n`);
  }

  error(text: string): void {
    process.stderr.write(`svc-sync: ${this.redact(text)}\n`);
  }

  /** The --json envelope: {status, result, warnings}, and `actions` (what to run next) when an error stopped the work. */
  json(status: number, result: unknown, warnings: string[], actions?: string[]): void {
    const envelope = actions === undefined ? { status, result, warnings } : { status, result, warnings, actions };
    process.stdout.write(`${this.redact(JSON.stringify(envelope, null, 2))}\n`);
  }
}
