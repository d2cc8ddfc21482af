import * as v from "valibot";
import { capabilities } from "#core/messaging/phone-numbers";
import { PhoneNumberInput } from "#core/shared/phone-input";
import { maxChars } from "#core/shared/validation";

// Apart from core/messaging/phone-numbers.ts: the body's phone validation (libphonenumber-js, ~123 KB) belongs only in
// the bundle of the route that parses it, and a module nobody uses is left out of a bundle (package.json "sideEffects").

/** Body of `POST /phone-numbers`. */
export const PhoneNumberRequestSchema = v.strictObject({
  phoneNumber: PhoneNumberInput,
  /**
   * true: buy the number at the carrier (one from `GET /available-phone-numbers`).
   * false (default): register a number the carrier account already holds,
   * which the carrier must confirm.
   */
  purchase: v.optional(v.boolean(), false),
  friendlyName: v.optional(v.pipe(v.string(), v.trim(), maxChars(255))),
  capabilities: v.optional(
    v.pipe(
      v.array(v.picklist(capabilities, "Each capability must be one of: sms, mms, voice.")),
      v.minLength(1),
      v.maxLength(3),
    ),
    ["sms", "mms", "voice"],
  ),
  /**
   * Throughput the carrier granted this number (its 10DLC campaign tier, a toll-free or short code upgrade), in
   * messages per second; sends are paced to it. Default by number type: long code 1, toll-free 3, short code 100.
   */
  messagesPerSecond: v.optional(
    v.pipe(
      v.number(),
      v.minValue(0.1, "At least 0.1 message per second."),
      v.maxValue(1000, "At most 1000 messages per second."),
    ),
  ),
});
export type PhoneNumberRequest = v.InferOutput<typeof PhoneNumberRequestSchema>;
