/**
 * Readers of one setting's value, each refusing a bad one with a line that names the setting and
 * never echoes a secret: the settings of every side (platform, Salesforce, webhooks) use them.
 */
import { ConfigError } from '../model/errors.js';
import { echo } from './echo.js';
import type { SettingName } from './settingsTable.js';

/** Settings as read (flags, environment, config file): a name absent and one set to undefined are the same. */
export type RawSettings = { [K in SettingName]?: string | undefined };

export function url(raw: RawSettings, name: SettingName): string | undefined {
  const v = raw[name];
  if (v === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(`${name}: not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`${name}: must be an http(s) URL`);
  return v.replace(/\/+$/, '');
}

/** Salesforce URLs never carry credentials, and fetch refuses a URL that does. */
export function urlWithoutCredentials(raw: RawSettings, name: SettingName): string | undefined {
  const v = url(raw, name);
  if (v !== undefined) {
    const u = new URL(v);
    if (u.username !== '' || u.password !== '') throw new ConfigError(`${name}: must not hold a user name or password (Salesforce logins use SF_USERNAME and SF_PASSWORD)`);
  }
  return v;
}

/**
 * Tokens, keys and secrets are single words of visible ASCII (what `openssl rand -hex 16` and
 * every real token generator give; a header cannot carry more): white space or a control
 * character is a copy-paste accident (a line break taken along), an emoji or an invisible format
 * character (a zero-width space from a chat or a web page) would look right and never match.
 * Passwords may hold spaces and letters of any script, never a control or an invisible character.
 */
export function secretValue(raw: RawSettings, name: SettingName, spacesAllowed = false): string | undefined {
  const v = raw[name];
  if (v === undefined) return undefined;
  if (/[\u0000-\u001f\u007f]/.test(v)) throw new ConfigError(`${name}: contains a line break or another control character; set it again without it`);
  if (!spacesAllowed && /\s/.test(v)) throw new ConfigError(`${name}: contains white space; set it again without it`);
  const invisible = /[\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u0080-\u009f]/u.exec(v);
  if (invisible) throw new ConfigError(`${name}: contains an invisible character (${codePoint(invisible[0])}, copied along from a chat or a web page?); set it again without it`);
  if (!spacesAllowed && !/^[\x21-\x7e]+$/.test(v)) {
    throw new ConfigError(`${name}: contains a character that is not visible ASCII (${codePoint(/[^\x21-\x7e]/u.exec(v)?.[0] ?? '?')}); tokens and keys are letters, digits and punctuation`);
  }
  return v;
}

/** U+200B: names a character without printing it (it may be invisible, or part of a secret). */
function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

export function int(raw: RawSettings, name: SettingName, def: number, min: number, max: number): number {
  const v = raw[name];
  if (v === undefined) return def;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new ConfigError(`${name}: must be a whole number from ${min} to ${max}`);
  return Number(v);
}

export function bool(raw: RawSettings, name: SettingName): boolean {
  const v = raw[name]?.toLowerCase();
  if (v === undefined) return false;
  if (['1', 'true', 'yes'].includes(v)) return true;
  if (['0', 'false', 'no'].includes(v)) return false;
  throw new ConfigError(`${name}: must be true or false`);
}

/**
 * A number of seconds written as a plain decimal ("30", "0.5"), as milliseconds. Number() alone
 * would take "0x10" (16), "1e3" (1000) and "" (0); and a positive value below the millisecond
 * would round to 0, silently turning a setting off: both are refused.
 */
export function plainSeconds(value: string, name: string, min: number, max: number): number {
  const v = value.trim();
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v) || n < min || n > max) {
    throw new ConfigError(`${name}: must be a number of seconds from ${min} to ${max}, written as a plain decimal (e.g. 30 or 0.5), got ${echo(value, 40)}`);
  }
  const ms = Math.round(n * 1000);
  if (n > 0 && ms === 0) throw new ConfigError(`${name}: ${echo(value, 40)} is below the resolution of 1 ms; give 0 or at least 0.001`);
  return ms;
}
