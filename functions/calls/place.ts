import * as CallPlacement from "#core/calls/placement";
import { endpoint } from "#core/http/endpoint";
import { placeCall } from "#core/http/operations/calls";

export const handler = endpoint(placeCall, async ({ actor, body, resourceId }) =>
  CallPlacement.place(actor, body, { callId: await resourceId() }),
);
