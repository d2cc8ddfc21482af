import { endpoint } from "#core/http/endpoint";
import { getMessage } from "#core/http/operations/messages";
import { Messages } from "#core/messaging/messages";

export const handler = endpoint(getMessage, ({ actor, params }) => Messages.fromId(actor, params.id));
