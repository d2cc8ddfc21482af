import { endpoint } from "#core/http/endpoint";
import { sendMessage } from "#core/http/operations/messages";
import { Messages } from "#core/messaging/messages";

export const handler = endpoint(sendMessage, ({ actor, body }) => Messages.send(actor, body));
