import { abandon, dispatch, place } from "#core/calls/placement";
import { find, fromId, list, listByPhone } from "#core/calls/queries";
import { dueShards } from "#core/calls/store";
import { dialResult, inbound, statusCallback } from "#core/calls/carrier-callbacks";

export type { Call, PlaceCallRequest, StatusChange } from "#core/calls/model";
export { CallSchema, PlaceCallSchema } from "#core/calls/schemas";
export { ListCallEventsSchema, ListCallsSchema, normalizePathPhoneNumber } from "#core/calls/queries";
export { RING_TIMEOUT_SECONDS, callWebhookUrl } from "#core/calls/placement";
export { CALL_SWEEP_GRACE_MINUTES, applyStatus, billFinalCall, callDeadline } from "#core/calls/lifecycle";

/**
 * Outbound and inbound calls: placing (core/calls/placement), provider
 * callbacks (core/calls/carrier-callbacks), status and billing by the minute
 * (core/calls/lifecycle), reads (core/calls/queries).
 */

export { find };

/** The shards of the due-call index (operator diagnostics). */
export { dueShards };

export { place };

export { fromId };

export { list };

export { listByPhone };

export { dispatch };

export { abandon };

export { statusCallback };

export { inbound };

export { dialResult };
