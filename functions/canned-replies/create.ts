import { endpoint } from "#core/http/endpoint";
import { createCannedReply } from "#core/http/operations/conversations";
import * as CannedReplies from "#core/messaging/canned-replies";

export const handler = endpoint(createCannedReply, ({ actor, body }) => CannedReplies.create(actor, body));
