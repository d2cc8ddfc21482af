import { Calls } from "#core/calls/index";
import { subscribe } from "#core/queue/subscribe";

/** Places queued calls with the provider (at most once per call; see core/calls). */
export const handler = subscribe("outboundCalls", {
  "call.place": {
    handle: (message) => Calls.dispatch(message.organizationId, message.data.callId),
    onPoison: (message, error) => Calls.abandon(message.organizationId, message.data.callId, error),
  },
});
