/**
 * Replay input: a CSV of object_type,object_id (header optional, extra columns such as
 * event_type ignored) or JSON lines of webhook bodies. Bad lines are reported by number and
 * skipped; the rest still runs. Each distinct record appears once.
 */
import { parseObjectType, type ObjectRef } from '../model/objects.js';

export interface ReplayInput {
  refs: ObjectRef[];
  badLines: Array<{ line: number; reason: string }>;
  /** Lines naming a record already listed. */
  duplicates: number;
}

function parseId(raw: unknown): number | undefined {
  const s = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  return /^\d+$/.test(s) && Number(s) > 0 && Number.isSafeInteger(Number(s)) ? Number(s) : undefined;
}

function splitCsvLine(line: string): string[] {
  const cells: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      cells.push(cur);
      cur = '';
    } else cur += ch;
  }
  cells.push(cur);
  return cells.map((c) => c.trim());
}

function fromJson(line: string): { type?: unknown; id?: unknown } | string {
  let body: unknown;
  try {
    body = JSON.parse(line);
  } catch {
    return 'not valid JSON';
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'not a JSON object';
  const b = body as Record<string, unknown>;
  return { type: b.object_type, id: b.object_id };
}

export function parseReplay(text: string): ReplayInput {
  const refs: ObjectRef[] = [];
  const seen = new Set<string>();
  const badLines: ReplayInput['badLines'] = [];
  let duplicates = 0;
  let columns = { type: 0, id: 1 };
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, index) => {
    const lineNo = index + 1;
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    let type: unknown;
    let id: unknown;
    if (line.startsWith('{')) {
      const parsed = fromJson(line);
      if (typeof parsed === 'string') {
        badLines.push({ line: lineNo, reason: parsed });
        return;
      }
      ({ type, id } = parsed);
    } else {
      const cells = splitCsvLine(line);
      const lower = cells.map((c) => c.toLowerCase());
      if (lower.includes('object_type') && lower.includes('object_id')) {
        columns = { type: lower.indexOf('object_type'), id: lower.indexOf('object_id') };
        return; // a header row, wherever the columns stand
      }
      type = cells[columns.type];
      id = cells[columns.id];
    }
    const t = typeof type === 'string' ? parseObjectType(type) : undefined;
    if (!t) {
      badLines.push({ line: lineNo, reason: `unknown object type ${JSON.stringify(type ?? '')}` });
      return;
    }
    const n = parseId(id);
    if (n === undefined) {
      badLines.push({ line: lineNo, reason: `object id ${JSON.stringify(id ?? '')} is not a positive whole number` });
      return;
    }
    const k = `${t}:${n}`;
    if (seen.has(k)) {
      duplicates++;
      return;
    }
    seen.add(k);
    refs.push({ type: t, id: n });
  });
  return { refs, badLines, duplicates };
}
