/** A usage or configuration problem: one line naming the input and what is wrong; exit code 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
