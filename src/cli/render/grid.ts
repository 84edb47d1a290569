/**
 * The one table style of the human output (sync's summary, audit, doctor, queue): a header row,
 * columns two spaces apart, no box. It fits the width given: when the natural widths do not fit,
 * the widest columns give up room first and their cells end in an ellipsis at a word boundary, so
 * no cell is split mid-word. --json and --report keep the full text.
 */
import type Table from 'cli-table3';
import { lazyModule } from '../../model/lazyModule.js';

/** Loaded when a table is drawn, not at start. */
const cliTable = lazyModule<typeof Table>('cli-table3');

type Align = 'left' | 'right';

interface GridOptions {
  columns: number;
  align?: Align[];
  /** Each column keeps at least this much (or its header's length, if shorter). */
  minWidth?: number;
  /** The column that gives up room first, down to `flexMin` (a free-text column such as an error). */
  flex?: number;
  flexMin?: number;
}

const GAP = 2;

/** A cell cut to `width` with an ellipsis, at the last word boundary when one is near enough. */
export function cutCell(text: string, width: number): string {
  const s = text.replace(/\s+/g, ' ').trim();
  if (s.length <= width) return s;
  if (width <= 1) return '…';
  const room = s.slice(0, width - 1);
  const space = room.lastIndexOf(' ');
  // A word boundary in the last third keeps words whole; a long single token is cut where it must be.
  const cut = space >= Math.floor((width - 1) * 0.66) ? room.slice(0, space) : room;
  return `${cut.replace(/[\s,;:]+$/, '')}…`;
}

/** Column widths: natural widths, then the widest shrunk one column at a time until they fit. */
function widthsFor(head: string[], rows: string[][], opts: GridOptions): number[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const floor = head.map((h, i) => Math.min(widths[i]!, Math.max(h.length, opts.minWidth ?? 6)));
  const total = (): number => widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1);
  const f = opts.flex;
  if (f !== undefined && total() > opts.columns) widths[f] = Math.max(floor[f]!, opts.flexMin ?? 0, widths[f]! - (total() - opts.columns));
  while (total() > opts.columns) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) if (widths[i]! > floor[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    if (widest < 0) break;
    widths[widest] = Math.max(floor[widest]!, widths[widest]! - (total() - opts.columns));
  }
  return widths;
}

/** cli-table3 without its box: columns GAP spaces apart, no padding, no colour. */
const PLAIN: Pick<Table.TableConstructorOptions, 'chars' | 'style'> = {
  chars: {
    top: '',
    'top-mid': '',
    'top-left': '',
    'top-right': '',
    bottom: '',
    'bottom-mid': '',
    'bottom-left': '',
    'bottom-right': '',
    left: '',
    'left-mid': '',
    mid: '',
    'mid-mid': '',
    right: '',
    'right-mid': '',
    middle: ' '.repeat(GAP),
  },
  style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
};

/** The table as lines, every one at most `opts.columns` wide: widths and cuts are ours, the layout cli-table3's. */
export function grid(head: string[], rows: Array<Array<string | number>>, opts: GridOptions): string[] {
  const cells = rows.map((r) => head.map((_, i) => String(r[i] ?? '').replace(/\s+/g, ' ')));
  const widths = widthsFor(head, cells, opts);
  const CliTable = cliTable();
  const table = new CliTable({
    ...PLAIN,
    head: head.map((h, i) => cutCell(h, widths[i]!)),
    colWidths: widths,
    colAligns: head.map((_, i) => opts.align?.[i] ?? 'left'),
    wordWrap: false,
  });
  for (const r of cells) table.push(r.map((c, i) => cutCell(c, widths[i]!)));
  return table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .map((l) => (l.length <= opts.columns ? l : `${l.slice(0, opts.columns - 1)}…`));
}
