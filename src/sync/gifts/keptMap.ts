/**
 * The projection's small state files (donor links, projected gifts, known campaigns): one map in a
 * JSON file beside the run state, `{"version": 1, "<field>": {...}}`, owner-only and written whole
 * (model/privateFile.ts). They only save calls: a missing, unreadable or foreign file is no error
 * (what it would have saved is read from the org again), and what is wrong with a file that is
 * there is said once, as a warning.
 */
import fs from 'node:fs';
import { writePrivateFile } from '../../model/privateFile.js';

interface KeptMapSpec<V> {
  /** How a warning names the file: `donor links`, `projected gifts`. */
  what: string;
  /** The map's field in the file: `links`, `digests`. */
  field: string;
  /** What a run does without the file: `donors are found again by key and email`. */
  without: string;
  /** What a valid entry is, for the warning: `a donor key with a Salesforce Id`. */
  entryIs: string;
  /** A valid entry's value, or undefined (not one svc-sync writes). */
  entry(key: string, value: unknown): V | undefined;
  /** An invalid entry makes the whole file foreign (true), or is only left out (false). */
  strict: boolean;
  /** Whether two values are the same (a set that changes nothing is not saved). */
  same(a: V, b: V): boolean;
}

export const SALESFORCE_ID = /^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/;
export const SHA256_HEX = /^[0-9a-f]{64}$/;

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The entries a file's text holds, or why it holds none svc-sync wrote. */
function parse<V>(text: string, spec: KeptMapSpec<V>): Map<string, V> | string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  const entries = isRecord(data) && data.version === 1 ? data[spec.field] : undefined;
  if (!isRecord(entries)) return `not {"version": 1, "${spec.field}": {...}}`;
  const out = new Map<string, V>();
  for (const [k, raw] of Object.entries(entries)) {
    const v = spec.entry(k, raw);
    if (v !== undefined) out.set(k, v);
    else if (spec.strict) return `an entry of ${spec.field} is not ${spec.entryIs}`;
  }
  return out;
}

export class KeptMap<V> {
  private readonly entries: Map<string, V>;
  private changed = false;
  /** What is wrong with the file found (to be said once as a warning), if anything. */
  readonly problem: string | undefined;

  constructor(
    readonly file: string,
    private readonly spec: KeptMapSpec<V>,
  ) {
    const read = KeptMap.read(file, spec);
    this.entries = typeof read === 'string' ? new Map() : read;
    this.problem = typeof read === 'string' ? read : undefined;
  }

  private static read<V>(file: string, spec: KeptMapSpec<V>): Map<string, V> | string {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      return code === 'ENOENT' ? new Map() : `${spec.what} ${file} cannot be read (${code}): ignored, ${spec.without}`;
    }
    const parsed = parse(text, spec);
    return typeof parsed === 'string' ? `${spec.what} ${file} are not ones svc-sync wrote (${parsed}): ignored, ${spec.without}` : parsed;
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  get size(): number {
    return this.entries.size;
  }

  set(key: string, value: V): void {
    const had = this.entries.get(key);
    if (had !== undefined && this.spec.same(had, value)) return;
    this.entries.set(key, value);
    this.changed = true;
  }

  delete(key: string): void {
    if (this.entries.delete(key)) this.changed = true;
  }

  /** Writes the file when something changed (a dry run never calls this); false when it could not be written. */
  save(): boolean {
    if (!this.changed) return true;
    try {
      writePrivateFile(this.file, `${JSON.stringify({ version: 1, [this.spec.field]: Object.fromEntries(this.entries) })}\n`);
      this.changed = false;
      return true;
    } catch {
      return false;
    }
  }
}
