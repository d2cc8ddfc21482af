import { endpoint } from "#core/http/endpoint";
import { listCannedReplies } from "#core/http/operations/conversations";
import * as CannedReplies from "#core/messaging/canned-replies";

export const handler = endpoint(listCannedReplies, ({ actor, body }) => CannedReplies.list(actor, body));
