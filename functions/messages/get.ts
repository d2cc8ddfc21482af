import { endpoint } from "#core/http/endpoint";
import { getMessage } from "#core/http/operations/messages";
import { messageFromId } from "#core/messaging/message-reads";

export const handler = endpoint(getMessage, ({ actor, params }) => messageFromId(actor, params.id));
