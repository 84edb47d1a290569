/** The donor step against the NPC emulator through the real client: setup, links in memory, donations. */
import { NPC_TARGET } from '../../../src/mapping/gifts/npcTarget.js';
import type { Emulator } from '../../../fixtures/salesforce/emulator.js';
import type { NpcOrg } from '../../../fixtures/salesforce/npc.js';
import type { ApiDonation } from '../../../src/model/apiRecords.js';
import type { GiftSink } from '../../../src/model/ports.js';
import type { DonorContext, DonorLinks } from '../../../src/sync/gifts/donorContext.js';
import { readRecordTypes } from '../../../src/sync/gifts/recordTypes.js';
import { setup } from '../../crm/helpers.js';

export class MemoryLinks implements DonorLinks {
  readonly map = new Map<string, string>();
  get(key: string): string | undefined {
    return this.map.get(key);
  }
  set(key: string, id: string): void {
    this.map.set(key, id);
  }
}

export interface DonorOrg {
  emu: Emulator;
  npc: NpcOrg;
  gifts: GiftSink;
  ctx(over?: Partial<DonorContext>): DonorContext;
  /** Salesforce calls since the last `mark()`. */
  calls(): number;
  mark(): void;
}

export async function donorOrg(): Promise<DonorOrg> {
  const s = await setup({ npc: true });
  const gifts = s.sink.gifts();
  const npc = s.emu.npc as NpcOrg;
  const recordTypes = await readRecordTypes(gifts, 'PersonAccount');
  const links = new MemoryLinks();
  let at = gifts.calls().total;
  return {
    emu: s.emu,
    npc,
    gifts,
    ctx: (over = {}) => ({ sink: gifts, target: NPC_TARGET, siteId: 6, dryRun: false, anonymousLastName: 'Anonymous', matchEmailAndName: true, recordTypes, links, ...over }),
    calls: () => gifts.calls().total - at,
    mark: () => {
      at = gifts.calls().total;
    },
  };
}

export const donation = (id: number, over: Partial<ApiDonation> = {}): ApiDonation => ({ id, site_id: 6, payment_status: 'paid', total_amount: '10.0', ...over });

/** The live Account holding a key, as the org has it. */
export function accountByKey(npc: NpcOrg, key: string): Record<string, unknown> | undefined {
  return npc.records('Account').find((r) => r.SvcDonorKey__c === key);
}
