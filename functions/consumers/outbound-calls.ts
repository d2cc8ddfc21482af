import { Calls } from "#core/calls/index";
import { subscribe } from "#core/queue/subscribe";

/** Places queued calls with the provider (at most once per call; see core/calls). */
export const handler = subscribe({ "call.place": (message) => Calls.dispatch(message.organizationId, message.data.callId) });
