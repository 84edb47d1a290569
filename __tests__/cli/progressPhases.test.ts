/**
 * Progress through every phase, as the status line renders it: a real sink writing to the
 * Salesforce emulator reports its Bulk job's steps and its Collections batches; a wait comes first
 * in the line and fits 80 columns; the ETA does not grow while the run waits.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Emulator } from '../../fixtures/salesforce/emulator.js';
import { ProgressTracker } from '../../src/cli/render/progress.js';
import { fit } from '../../src/cli/render/text.js';
import type { Progress, WriteStep } from '../../src/model/outcomes.js';
import { describeWait } from '../../src/platform/rateLimit.js';
import { SCHEMA } from '../../src/mapping/schema.js';
import { RecordCache } from '../../src/sync/run/cache.js';
import { RunReport } from '../../src/sync/report/report.js';
import { RecordWriter } from '../../src/sync/mirror/writer.js';
import { segments, setup } from '../crm/helpers.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** The lines a tracker renders for each step a real upsert reports, on a clock that never moves. */
async function renderedSteps(bulkThreshold: number, count: number, polls = 0): Promise<string[]> {
  const s = await setup({ bulkPollsBeforeComplete: polls }, { bulkThreshold });
  emu = s.emu;
  const tracker = new ProgressTracker(() => 0);
  const lines: string[] = [];
  const base: Progress = { type: 'segment', phase: 'write', done: 0, total: count };
  const onStep = (step: WriteStep): void => {
    tracker.update({ ...base, step });
    lines.push(tracker.line());
  };
  const out = await s.sink.upsert('Svc_Segment__c', segments(count), onStep);
  expect(out.every((o) => o.status === 'created')).toBe(true);
  return lines;
}

describe('write phase steps', () => {
  it('a Bulk job shows created, uploaded, processing N/M and its results, in that order', async () => {
    const lines = await renderedSteps(10, 450, 2);
    expect(lines[0]).toBe('write segment 0/450 · Bulk job created (450) · 0:00');
    expect(lines[1]).toBe('write segment 0/450 · Bulk job uploaded (450) · 0:00');
    const processing = lines.filter((l) => l.includes('Bulk job processing'));
    expect(processing.length).toBeGreaterThanOrEqual(3);
    expect(processing.at(-1)).toBe('write segment 0/450 · Bulk job processing 450/450 · 0:00');
    expect(lines.at(-1)).toBe('write segment 0/450 · Bulk job reading results (450) · 0:00');
    expect(lines).toHaveLength(2 + processing.length + 1);
  });

  it('Collections show each batch of 200 against the batches of the write', async () => {
    const lines = await renderedSteps(2000, 450);
    expect(lines).toEqual(['Collections 1/3', 'Collections 2/3', 'Collections 3/3'].map((s) => `write segment 0/450 · ${s} · 0:00`));
  });
});

describe('the writer passes the steps on', () => {
  it('a write of 450 segments over the real sink reports its Bulk job from creation to results', async () => {
    const s = await setup({}, { bulkThreshold: 10 });
    emu = s.emu;
    const steps: string[] = [];
    const report = new RunReport();
    await new RecordWriter(s.sink, { dryRun: false, force: false }, report, new RecordCache()).write(SCHEMA.segment, segments(450), new Map(), (step) =>
      steps.push(step.via === 'bulk' ? step.step : 'collections'),
    );
    expect(report.records.filter((r) => r.action === 'insert')).toHaveLength(450);
    expect(steps[0]).toBe('created');
    expect(steps[1]).toBe('uploaded');
    expect(steps.at(-1)).toBe('results');
    expect(steps.slice(2, -1).every((x) => x === 'processing')).toBe(true);
  });
});

describe('waits', () => {
  it('a wait comes first, counts down, fits 80 columns, and the ETA stays put across it', () => {
    let now = 0;
    const tracker = new ProgressTracker(() => now);
    tracker.requests(12_345, 678);
    tracker.update({ type: 'donation', phase: 'fetch', done: 0, total: 20_000 });
    now = 60_000;
    tracker.update({ type: 'donation', phase: 'fetch', done: 5_000, total: 20_000 });
    const before = tracker.line();
    expect(before).toBe('fetch donation 5,000/20,000 · 1:00 · ETA 3:00 · 12,345 API + 678 SF requests');

    tracker.setNote(describeWait(45, 'minute_limit'), now + 45_000);
    const lines: string[] = [];
    for (let t = 0; t <= 40_000; t += 20_000) {
      now = 60_000 + t;
      lines.push(tracker.line());
    }
    expect(lines.map((l) => fit(l, 78))).toEqual([
      'waiting 45 s: platform minute limit · fetch donation 5,000/20,000 · 1:00 · ET…',
      'waiting 25 s: platform minute limit · fetch donation 5,000/20,000 · 1:20 · ET…',
      'waiting 5 s: platform minute limit · fetch donation 5,000/20,000 · 1:40 · ETA…',
    ]);
    for (const l of lines) expect(l).toContain('ETA 3:00');

    // Once the wait is over the note goes, and the pace is the work's alone: 10,000 in 60 s of work.
    now = 105_000;
    tracker.update({ type: 'donation', phase: 'fetch', done: 10_000, total: 20_000 });
    expect(tracker.line()).toBe('fetch donation 10,000/20,000 · 1:45 · ETA 1:00 · 12,345 API + 678 SF requests');
  });

  it('a new type starts its pace afresh, its waits before it left out', () => {
    let now = 0;
    const tracker = new ProgressTracker(() => now);
    tracker.update({ type: 'segment', phase: 'scan', done: 1, total: 2 });
    tracker.setNote(describeWait(30, 'hour_limit'), 30_000);
    now = 40_000;
    tracker.update({ type: 'donation', phase: 'scan', done: 100, total: 400 });
    now = 50_000;
    expect(tracker.line()).toBe('scan donation 100/400 · 0:50 · ETA 0:30');
  });
});
