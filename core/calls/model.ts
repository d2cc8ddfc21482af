import type * as v from "valibot";
import type { CallSchema, PlaceCallSchema } from "#core/calls/schemas";
import type { CallStatus } from "#core/shared/status";

/** Types of calls (no runtime code: any module may import them without loading calls). */

export type PlaceCallRequest = v.InferOutput<typeof PlaceCallSchema>;

export type Call = v.InferOutput<typeof CallSchema>;

/** One step of a call's progress, from a provider callback, a Dial result, the call sweep or a refused placement. */
export interface StatusChange {
  status: CallStatus;
  /**
   * "business": the provider's own call of an outbound call (its status
   * callbacks, the sweep's lookup). For a bridged call that is the business
   * side's leg, which never answers the call itself (`businessLegChange`);
   * otherwise the leg of the call the Dial result reports.
   */
  leg?: "business";
  providerStatus: string;
  providerCallId?: string;
  durationSeconds?: number;
  recordingUrl?: string;
  errorCode?: string;
  statusReason?: string;
}
