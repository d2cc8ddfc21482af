import * as v from "valibot";
import { PhoneNumberInput } from "#core/shared/phone-input";
import { maxChars } from "#core/shared/validation";

/**
 * Apart from schemas.ts (the call as answered, which every call read, the consent record and the webhook payloads
 * bundle): its phone fields bring libphonenumber-js (~123 KB).
 */

const metadataValue = v.union(
  [v.string(), v.number(), v.boolean(), v.null()],
  "Metadata values must be strings, numbers, booleans or null.",
);

/** Body of `POST /calls`: a call to a lead or a number, from an organization number. */
export const PlaceCallSchema = v.pipe(
  v.strictObject({
    leadId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
    to: v.optional(PhoneNumberInput),
    /** Manual choice of the calling number (must have the voice capability). */
    fromPhoneNumberId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
    /** Ask the provider to record the call. */
    record: v.optional(v.boolean(), false),
    /**
     * Click-to-call: the business side (an agent's phone) rung first; once it
     * answers, the lead is dialed with the organization's number as caller id
     * and the two are connected. Default: `outboundCalls.connectTo` of the
     * messaging settings; without either the lead is called directly.
     */
    connectTo: v.optional(PhoneNumberInput),
    /** Said to the business side once it answers, before the lead is dialed (bridged calls). */
    whisper: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), maxChars(320))),
    /** Seconds the lead's phone rings before the call ends NoAnswer (default 30). */
    ringSeconds: v.optional(
      v.pipe(
        v.number(),
        v.integer("Must be a whole number of seconds."),
        v.minValue(5, "At least 5 seconds."),
        v.maxValue(120, "At most 120 seconds."),
      ),
    ),
    metadata: v.optional(
      v.pipe(
        v.record(v.pipe(v.string(), v.maxLength(64)), metadataValue),
        v.check((value) => Object.keys(value).length <= 20, "At most 20 metadata keys."),
      ),
      {},
    ),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const input = dataset.value;
    if ((input.leadId === undefined) === (input.to === undefined)) {
      addIssue({
        message: "Call exactly one of leadId or to.",
        path: [{ type: "object", origin: "value", input, key: "to", value: input.to }],
      });
    }
  }),
);
