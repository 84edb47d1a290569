/**
 * The stack of the §7 projection cases in Nonprofit Cloud: the generated site's projection cases
 * in the strict NPC org, projected for site 6 with SVC_PROJECTION=npc. Shared by the files that
 * start from it (projectionCases, giftProjectionGone).
 */
import { startStack, type Stack } from '../../fixtures/stack.js';
import { removeDir, tempCwd } from './helpers.js';

/** The generated site of the §7 cases alone. */
export const CASES_SITE = { segments: 0, donations: 0, newsletterSubscriptions: 0, projectionCases: true };

export interface CasesStack {
  stack: Stack;
  cwd: string;
  env: Record<string, string>;
}

export async function npcCasesStack(label: string): Promise<CasesStack> {
  const stack = await startStack({ site: CASES_SITE, salesforce: { npc: true } });
  // §2.3: Reason Chargeback "when that picklist value exists": this org's admin added it.
  stack.salesforce.npc?.addValue('GiftRefund', 'Reason', 'Chargeback');
  return { stack, cwd: tempCwd(label), env: { ...stack.env, SVC_PROJECTION: 'npc', SVC_SITE_ID: '6' } };
}

export async function closeCasesStack({ stack, cwd }: CasesStack): Promise<void> {
  await stack.close();
  removeDir(cwd);
}
