import { endpoint } from "#core/http/endpoint";
import { replayWebhookEvents } from "#core/http/operations/webhook-endpoints";
import * as WebhookReplay from "#core/webhooks/replay";

export const handler = endpoint(replayWebhookEvents, ({ actor, body, params }) =>
  WebhookReplay.replay(actor, params.id, body),
);
