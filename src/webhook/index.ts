/** The webhook door into the engine: what the CLI (`serve`, `queue`) and the engine wiring use. */
export { parseWebhookBody, type ParseResult, type WebhookMessage } from './message.js';
export { classifyEvent, type ClassifyOptions, type EventIntent } from './events.js';
export {
  DEFAULT_QUEUE_PATH,
  DEFAULT_RETRY,
  WebhookQueue,
  pruneQueue,
  queueStatus,
  retryFailed,
  type FailedEvent,
  type OwnerPair,
  type QueueCounts,
  type QueueStatus,
  type RetryPolicy,
} from './queue.js';
export { DEFAULT_MAX_BODY_BYTES, SECRET_HEADER, startReceiver, type Receiver, type ReceiverOptions } from './server.js';
export { startWorker, type BatchProcessor, type BatchReport, type ProcessOutcome, type ProcessResult, type Worker, type WorkerOptions } from './worker.js';
export { DEFAULT_SERVE, serve, type RunningService, type ServeOptions } from './serve.js';
