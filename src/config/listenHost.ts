/**
 * `serve --host`: checked before the queue is opened or locked, so a host it cannot listen on
 * leaves nothing behind (no queue file, no lock) and says so in one line (exit 2). An address is
 * written bare (`::1`, not the URL form `[::1]`); a name must resolve on this machine.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ConfigError } from '../model/errors.js';
import { echo } from './echo.js';

/** A name's lookup never holds the start longer than this: past it, listen() says what it finds. */
const LOOKUP_BOUND_MS = 10_000;

const USAGE = 'give an address of this machine (0.0.0.0, ::, 127.0.0.1, ::1) or a name that resolves to one';

/** The host as listen() takes it, or a usage error naming --host. */
export async function checkListenHost(host: string): Promise<void> {
  const bracketed = /^\[(.*)\]$/.exec(host)?.[1];
  if (bracketed !== undefined) {
    throw new ConfigError(`--host ${echo(host)}: an address is given without brackets${isIP(bracketed) === 6 ? ` (--host ${bracketed})` : ''}; ${USAGE}`);
  }
  if (isIP(host) !== 0) return;
  if (!/^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\.?$/.test(host) || host.length > 253) {
    throw new ConfigError(`--host ${echo(host)}: not an address or a host name; ${USAGE}`);
  }
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'slow'>((resolve) => {
    timer = setTimeout(() => resolve('slow'), LOOKUP_BOUND_MS);
    timer.unref();
  });
  try {
    await Promise.race([lookup(host), bound]);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new ConfigError(`--host ${echo(host)}: this machine cannot resolve the name (${typeof code === 'string' ? code : 'lookup failed'}); ${USAGE}`);
  } finally {
    clearTimeout(timer);
  }
}
