import { endpoint } from "#core/http/endpoint";
import { cancelMessage } from "#core/http/operations/messages";
import * as Messages from "#core/messaging/messages";

export const handler = endpoint(cancelMessage, ({ actor, params, body }) =>
  Messages.cancel(actor, params.id, body.reason),
);
