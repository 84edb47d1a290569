/** Builds the two sides a run needs from settings: the platform source and the Salesforce sink. */
import type { Settings } from '../config/settings.js';
import { SalesforceSink } from '../crm/sink.js';
import type { CrmSink } from '../crm/types.js';
import { createPlatformSource } from '../platform/source.js';
import { describeWait } from '../platform/rateLimit.js';
import type { RecordSource } from '../sync/ports.js';

export interface Deps {
  source: RecordSource;
  sink: CrmSink;
}

export async function createDeps(settings: Settings, onNote: (text: string) => void = () => undefined): Promise<Deps> {
  const source = createPlatformSource(settings.platform, { onWait: (w) => onNote(describeWait(w.seconds, w.reason)) });
  const sink = await SalesforceSink.connect(settings.salesforce);
  return { source, sink };
}
