import { it, expect } from '@jest/globals';
import { refOfKey, keyFor, questionKey } from '../../src/model/refs.js';
it('turns a key back into the platform object it stands for (a question into its action)', () => {
  expect(refOfKey(keyFor('donation', 12))).toEqual({ type: 'donation', id: 12 });
  expect(refOfKey(keyFor('newsletter_subscription', 3))).toEqual({ type: 'newsletter_subscription', id: 3 });
  expect(refOfKey(questionKey(5, 2))).toEqual({ type: 'action', id: 5 });
  expect(refOfKey('Action_7')).toEqual({ type: 'action', id: 7 });
  expect(refOfKey('Nope_7')).toBeUndefined();
});
