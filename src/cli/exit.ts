/** Errors to exit codes, in one place: 0 all done; 1 some records failed; 2 usage or configuration. */
import { CommanderError } from 'commander';
import { ConfigError } from '../config/errors.js';
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

/** A one-line message for an error, naming what failed. */
export function messageOf(err: unknown): string {
  if (err instanceof PlatformError && err.fatal) return `platform API rejected the key or URL: ${err.message} (check SVC_API_KEY and SVC_API_URL)`;
  if (err instanceof Error) return err.message.split('\n')[0] ?? String(err);
  return String(err);
}
