import { endpoint } from "#core/http/endpoint";
import { deleteCannedReply } from "#core/http/operations/conversations";
import * as CannedReplies from "#core/messaging/canned-replies";

export const handler = endpoint(deleteCannedReply, ({ actor, params }) => CannedReplies.remove(actor, params.id));
