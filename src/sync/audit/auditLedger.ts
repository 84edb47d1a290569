/**
 * What a complete list scan saw, kept compactly so orphans can be found by walking Salesforce's
 * keys afterwards with memory flat in the size of either side.
 *
 * Why a set of seen ids and not a merge of two sorted streams: the platform's list order is not
 * documented (the fake sorts by id, the real API need not), and Salesforce can only sort SvcId__c
 * as text ("Donation_10" < "Donation_9"), so a merge join would rest on an assumption. A sorted
 * Float64Array costs 8 bytes per record (100,000 records: 0.8 MB), against about 2 KB per record
 * for holding either side's records; the Salesforce side is walked one 2,000-row page at a time.
 */
export class IdSet {
  private ids = new Float64Array(1024);
  private size = 0;
  private sorted = true;

  add(id: number): void {
    if (this.size === this.ids.length) {
      const bigger = new Float64Array(this.ids.length * 2);
      bigger.set(this.ids);
      this.ids = bigger;
    }
    if (this.size > 0 && id < this.ids[this.size - 1]) this.sorted = false;
    this.ids[this.size++] = id;
  }

  get count(): number {
    return this.size;
  }

  has(id: number): boolean {
    if (!this.sorted) {
      this.ids.subarray(0, this.size).sort();
      this.sorted = true;
    }
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.ids[mid];
      if (v === id) return true;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }
}

const QUESTION_KEY = /^ActionQuestion_(\d+)\.(\d+)$/;

/**
 * The action and question ids of a question key (ActionQuestion_{action}.{question}); question
 * keys are the one composite key, so they are packed as a pair rather than kept as strings.
 */
export function questionIdsOf(key: string): { actionId: number; questionId: number } | undefined {
  const m = QUESTION_KEY.exec(key);
  return m ? { actionId: Number(m[1]), questionId: Number(m[2]) } : undefined;
}

/** Pairs of (action id, question id) seen, grouped by action: a form has a handful of questions. */
export class PairSet {
  private readonly byAction = new Map<number, number[]>();
  count = 0;

  add(actionId: number, questionId: number): void {
    this.count++;
    const list = this.byAction.get(actionId);
    if (list) list.push(questionId);
    else this.byAction.set(actionId, [questionId]);
  }

  has(actionId: number, questionId: number): boolean {
    return this.byAction.get(actionId)?.includes(questionId) === true;
  }
}
