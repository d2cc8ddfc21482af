import * as DeliveryAttempts from "#core/webhooks/attempt";
import * as WebhookDeliveryLog from "#core/webhooks/delivery-log";
import * as DueRetries from "#core/webhooks/due-retries";
import * as WebhookFanOut from "#core/webhooks/fan-out";
import * as WebhookReplay from "#core/webhooks/replay";

export type { DeliverMessage } from "#core/webhooks/queue";
export { maxAttempts } from "#core/webhooks/attempt";
export {
  ListWebhookAttemptsSchema,
  PingResultSchema,
  ReplayRequestSchema,
  ReplayResultSchema,
  retentionSeconds,
  WebhookAttemptSchema,
  type AttemptErrorKind,
  type ReplayRequest,
  type ReplayResult,
  type Trigger,
  type WebhookAttempt,
} from "#core/webhooks/delivery-log";

/**
 * Webhook deliveries: fan-out from recorded events, signed sends with retries, replay, test pings and the delivery
 * log. Each Lambda imports the one part it runs (fan-out.ts, attempt.ts, due-retries.ts, replay.ts, delivery-log.ts),
 * since those parts bundle very different things (every resource's reads, the outbound HTTP egress); this namespace is for the rest.
 */
export const WebhookDeliveries = {
  ...WebhookDeliveryLog,
  ...WebhookFanOut,
  ...DeliveryAttempts,
  ...DueRetries,
  ...WebhookReplay,
};
