/**
 * The org guard of the gift projection: SVC_PROJECTION=npc writes only into an org doctor would
 * pass, `auto` resolves to Nonprofit Cloud or to the mirror alone, and a refusal is one line
 * naming what is missing with doctor next. Against the emulator, over the real client.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Emulator, EmulatorOptions } from '../../fixtures/salesforce/emulator.js';
import { chooseProjection, resolveProjection } from '../../src/crm/projectionGuard.js';
import { NPSP_KEY_FIELDS } from '../../src/mapping/gifts/keyFields.js';
import type { SalesforceSink } from '../../src/crm/sink.js';
import { ConfigError } from '../../src/model/errors.js';
import { setup } from './helpers.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function org(opts: EmulatorOptions): Promise<{ emu: Emulator; sink: SalesforceSink }> {
  const s = await setup(opts);
  emu = s.emu;
  return s;
}

/** The refusal a guard throws: its one line (the test fails if it does not refuse). */
async function refusal(p: Promise<unknown>): Promise<string> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).actions).toEqual(['svc-sync doctor']);
  return (error as ConfigError).message;
}

describe('the projection guard', () => {
  it('off: nothing asked of the org', async () => {
    const { sink } = await org({ npc: true });
    const before = sink.calls().total;
    expect(await chooseProjection(sink, undefined)).toBeUndefined();
    expect(await resolveProjection(sink, undefined)).toBe('off');
    expect(sink.calls().total).toBe(before);
  });

  it('npc in an org with everything: npc, each object described once', async () => {
    const { sink } = await org({ npc: true });
    const before = sink.calls().describe;
    expect(await chooseProjection(sink, 'npc')).toEqual({ setting: 'npc', resolved: 'npc', reason: 'the org checked' });
    // Account, Campaign and the three gift objects; npc does not ask for NPSP.
    expect(sink.calls().describe - before).toBe(5);
  });

  it('auto: npc when the org has GiftTransaction and the key fields', async () => {
    const { sink } = await org({ npc: true });
    expect(await chooseProjection(sink, 'auto')).toEqual({ setting: 'auto', resolved: 'npc', reason: 'GiftTransaction and key fields found' });
    expect(await resolveProjection(sink, 'auto')).toBe('npc');
  });

  it('auto: off in an org without Nonprofit Cloud or NPSP, after two describes', async () => {
    const { sink } = await org({});
    const before = sink.calls().describe;
    expect(await chooseProjection(sink, 'auto')).toEqual({ setting: 'auto', resolved: 'off', reason: 'the org has no GiftTransaction and no NPSP' });
    // GiftTransaction, then NPSP's payment object.
    expect(sink.calls().describe - before).toBe(2);
  });

  it('auto: off in an NPC org without the key fields (not set up for svc-sync)', async () => {
    const { emu: e, sink } = await org({ npc: true });
    e.npc?.removeField('GiftTransaction', 'SvcGiftKey__c');
    expect(await chooseProjection(sink, 'auto')).toEqual({ setting: 'auto', resolved: 'off', reason: 'key fields not deployed, see doctor' });
  });

  it('npc in an org without Nonprofit Cloud: refused in one line, doctor next', async () => {
    const { sink } = await org({});
    const line = await refusal(resolveProjection(sink, 'npc'));
    expect(line).toMatch(/^SVC_PROJECTION npc: the org has no GiftTransaction object \(no Nonprofit Cloud\); .*; next: svc-sync doctor$/);
    expect(line).not.toMatch(/\n/);
  });

  it('npc with a key field and a field missing: each named, in doctor order; a missing value alone is no refusal', async () => {
    const { emu: e, sink } = await org({ npc: true });
    e.npc?.deactivateValue('GiftSoftCredit', 'Role', 'Solicitor');
    expect(await resolveProjection(sink, 'npc')).toBe('npc');
    e.npc?.removeField('GiftTransaction', 'SvcGiftKey__c');
    e.npc?.removeField('Account', 'PersonEmail');
    expect(await refusal(resolveProjection(sink, 'npc'))).toBe(
      'SVC_PROJECTION npc: the org cannot take the gift projection: Account.PersonEmail missing, GiftTransaction.SvcGiftKey__c missing; next: svc-sync doctor',
    );
  });

  it('auto with the key fields but standard fields missing: refused (set up for svc-sync, not writable)', async () => {
    const { emu: e, sink } = await org({ npc: true });
    e.npc?.removeField('GiftTransaction', 'GatewayReference');
    e.npc?.removeField('GiftRefund', 'Reason');
    e.npc?.removeField('Campaign', 'EndDate');
    e.npc?.removeField('Account', 'Phone');
    expect(await refusal(resolveProjection(sink, 'auto'))).toBe(
      'SVC_PROJECTION auto: the org cannot take the gift projection: Account.Phone missing, Campaign.EndDate missing, GiftTransaction.GatewayReference missing (+1 more); next: svc-sync doctor',
    );
  });

  it('NPSP beside NPC: auto refused (which model?), npc writes Nonprofit Cloud', async () => {
    const { sink } = await org({ npc: true, npsp: true });
    expect(await refusal(resolveProjection(sink, 'auto'))).toMatch(/^SVC_PROJECTION auto: org has NPSP and NPC \(migration\?\); set SVC_PROJECTION=npc .*; next: svc-sync doctor$/);
    expect(await resolveProjection(sink, 'npc')).toBe('npc');
  });

  it('NPSP alone without the key fields: auto is off, npsp refused naming them, npc refused', async () => {
    const { emu, sink } = await org({ npsp: true });
    // The emulator's NPSP org has the key fields deployed; an org before `schema --projection npsp` has none.
    for (const k of NPSP_KEY_FIELDS) emu.npsp?.removeField(k.object, k.field);
    expect(await resolveProjection(sink, 'auto')).toBe('off');
    expect(await refusal(resolveProjection(sink, 'npsp'))).toMatch(/^SVC_PROJECTION npsp: the org cannot take the gift projection: .*SvcDonorKey__c.* missing.*; next: svc-sync doctor$/);
    expect(await refusal(resolveProjection(sink, 'npc'))).toMatch(/no GiftTransaction object/);
  });

  it('npsp in an org without NPSP: refused in one line', async () => {
    const { sink } = await org({ npc: true });
    expect(await refusal(resolveProjection(sink, 'npsp'))).toBe(
      'SVC_PROJECTION npsp: the org has no NPSP (npe01__OppPayment__c, Opportunity.npsp__Primary_Contact__c); set SVC_PROJECTION=npc or off; next: svc-sync doctor',
    );
  });
});
