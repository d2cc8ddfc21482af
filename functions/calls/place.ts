import { Calls } from "#core/calls/index";
import { endpoint } from "#core/http/endpoint";
import { placeCall } from "#core/http/operations/calls";

export const handler = endpoint(placeCall, async ({ actor, body, resourceId }) =>
  Calls.place(actor, body, { callId: await resourceId() }),
);
