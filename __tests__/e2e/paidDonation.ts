/**
 * A paid donation added to a stack's platform: to the site's first action, by a donor of its own
 * (the action's fundraiser gets a soft credit), for the tests of what runs after the first keep.
 */
import type { Stack } from '../../fixtures/stack.js';
import type { ApiDonation } from '../../src/model/apiRecords.js';

export function addPaidDonation(stack: Stack, id: number): ApiDonation {
  const action = stack.platform.site.action[0];
  if (!action) throw new Error('the generated site has no action');
  const at = new Date().toISOString();
  const d: ApiDonation = {
    id,
    site_id: 6,
    created_at: at,
    updated_at: at,
    payment_status: 'paid',
    payment_status_at: at,
    currency: 'EUR',
    payment_method: 'creditcard',
    first_name: 'Donor',
    last_name: `Number${id}`,
    email: `donor${id}@x.nl`,
    donation_amount: '10.0',
    total_amount: '10.0',
    action_id: action.id,
  };
  stack.platform.add('donation', d);
  return d;
}
