/**
 * The config file is trusted only when only its owner can write it (model/ownerOnly.ts, the compile
 * cache's rule). One that others can write and that points svc-sync somewhere (a URL setting) while
 * secrets are configured is refused (exit 2): whoever rewrites SF_LOGIN_URL would receive
 * SF_CLIENT_SECRET on the next run. Otherwise it is read, with one warning line.
 */
import { ConfigError } from '../model/errors.js';
import { writableByOthers } from '../model/ownerOnly.js';
import { SETTINGS } from './settingsTable.js';

/** Settings that say where svc-sync connects (and so where its credentials go). */
const STEERING: ReadonlySet<string> = new Set(SETTINGS.filter((r) => ('url' in r && r.url === true) || r.name.endsWith('_URL')).map((r) => r.name));
const SECRETS: readonly string[] = SETTINGS.filter((r) => 'secret' in r && r.secret === true).map((r) => r.name);

/**
 * Undefined when only the file's owner can write it (or on Windows); else the warning line, or a
 * ConfigError when it may redirect secrets. `groups`: the file's top level and its connections,
 * as read; `env`: where secrets also come from.
 */
export function untrustedConfig(file: string, groups: ReadonlyArray<Record<string, unknown>>, env: NodeJS.ProcessEnv): string | undefined {
  if (process.platform === 'win32') return undefined;
  const why = writableByOthers(file);
  if (why === undefined) return undefined;
  const fix = `chmod 600 ${file}, and keep it in a folder only its owner can write`;
  const steering = [...new Set(groups.flatMap((g) => Object.keys(g).filter((k) => STEERING.has(k))))];
  const secrets = SECRETS.filter((s) => (env[s] ?? '').trim() !== '' || groups.some((g) => g[s] !== undefined));
  if (steering.length > 0 && secrets.length > 0) {
    throw new ConfigError(
      `config file ${file}: ${why}, and it sets ${steering.join(', ')} while ${secrets.join(', ')} ${secrets.length === 1 ? 'is' : 'are'} set: whoever can write it could send them elsewhere; refused: ${fix}`,
      [`chmod 600 ${file}`],
    );
  }
  return `warning: config file ${file}: ${why}: others could change what svc-sync does; ${fix}`;
}
