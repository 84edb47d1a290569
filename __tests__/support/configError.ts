/** The ConfigError a call throws: anything else (or nothing) fails the test. */
import { ConfigError } from '../../src/model/errors.js';

export function configErrorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}
