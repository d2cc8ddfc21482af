import * as CallPlacement from "#core/calls/placement";
import { subscribe } from "#core/queue/subscribe";

/** Places queued calls with the provider (at most once per call; see core/calls). */
export const handler = subscribe("outboundCalls", {
  "call.place": {
    handle: (message) => CallPlacement.dispatch(message.organizationId, message.data.callId),
    onPoison: (message, error) => CallPlacement.abandon(message.organizationId, message.data.callId, error),
  },
});
