/** Shared helpers of the mapping tests: typed fixture loading and result narrowing. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { RESOURCES, type ApiRecordOf } from '../../src/model/apiRecords.js';
import type { InvalidRecord, MapResult, MappedRecord, SkippedRecord } from '../../src/mapping/types.js';

export type ApiKind = keyof ApiRecordOf;

/** Reads fixtures/<file> (a single-record response, `{"<singular>": {...}}`) and unwraps it. */
export function fixture<K extends ApiKind>(file: string, kind: K): ApiRecordOf[K] {
  const raw = JSON.parse(readFileSync(path.join(process.cwd(), 'fixtures', file), 'utf8')) as Record<string, unknown>;
  const record = raw[RESOURCES[kind].one];
  if (record === null || typeof record !== 'object') throw new Error(`fixtures/${file} has no "${RESOURCES[kind].one}" record`);
  return record as ApiRecordOf[K];
}

export const full = <K extends ApiKind>(kind: K): ApiRecordOf[K] => fixture(`mapping/full/${kind}.json`, kind);
export const hostile = <K extends ApiKind>(name: string, kind: K): ApiRecordOf[K] => fixture(`mapping/hostile/${name}.json`, kind);

export function asRecord(result: MapResult | undefined): MappedRecord {
  if (result?.kind !== 'record') throw new Error(`expected a mapped record, got ${JSON.stringify(result)}`);
  return result;
}

export function asSkip(result: MapResult | undefined): SkippedRecord {
  if (result?.kind !== 'skip') throw new Error(`expected a skip, got ${JSON.stringify(result)}`);
  return result;
}

export function asInvalid(result: MapResult | undefined): InvalidRecord {
  if (result?.kind !== 'invalid') throw new Error(`expected an invalid record, got ${JSON.stringify(result)}`);
  return result;
}

/** One emoji outside the BMP: two UTF-16 code units (a surrogate pair). */
export const EMOJI = '\u{1F600}';
export const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
export const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;
