/** The run options' values parsed on the command line: light, so a command's declaration (and --help) loads no engine. */
import { echo } from '../config/echo.js';
import { ConfigError } from '../model/errors.js';

/** --wait's value as commander gives it: true when bare (the default bound), the bound in ms when given. */
export type WaitValue = true | number;

/** Records of one type a CLI run maps and writes together (the webhook worker's batches are smaller: see webhook/worker/processor). */
export const CLI_BATCH_SIZE = 5000;

export function parseBatchSize(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 100_000) throw new ConfigError(`--batch-size: must be a whole number from 1 to 100000, got ${echo(raw)}`);
  return Number(raw);
}
