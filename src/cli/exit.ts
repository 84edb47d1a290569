/** Errors to exit codes, in one place: 0 all done; 1 some records failed; 2 usage or configuration. */
import { CommanderError } from 'commander';
import { ConfigError } from '../config/errors.js';
import { oneLine } from '../config/quote.js';
import { SalesforceAuthError } from '../crm/errors.js';
import { PlatformError } from '../platform/errors.js';

export const EXIT = { OK: 0, PARTIAL: 1, USAGE: 2 } as const;

export function exitCodeOf(err: unknown): number {
  if (err instanceof ConfigError) return EXIT.USAGE;
  if (err instanceof CommanderError) return EXIT.USAGE;
  if (err instanceof PlatformError && err.fatal) return EXIT.USAGE;
  if (err instanceof SalesforceAuthError) return EXIT.USAGE;
  return EXIT.PARTIAL;
}

/**
 * A one-line message for an error, naming what failed. Secrets are masked before the text is cut
 * to its first line: a cut secret would no longer match its mask.
 */
export function messageOf(err: unknown, redact: (text: string) => string = (t) => t): string {
  let text: string;
  if (err instanceof PlatformError && err.fatal) text = `platform API rejected the key or URL: ${err.message} (check SVC_API_KEY and SVC_API_URL)`;
  else if (err instanceof Error) text = err.message;
  else text = String(err);
  return oneLine(redact(text).split(/\r?\n/)[0] ?? '');
}
