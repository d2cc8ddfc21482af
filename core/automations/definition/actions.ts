import { createHmac } from "node:crypto";
import * as v from "valibot";
import { maxChars } from "#core/shared/validation";
import {
  ClockTimeSchema,
  E164Schema,
  exactlyOne,
  HttpUrlSchema,
  nodeSchema,
  problemCheck,
  ResourceIdSchema,
  settingsSchema,
  templateSchema,
  text,
} from "./common.ts";
import { writableFieldPathProblem } from "./lead-fields.ts";
import { automationLimits, httpMethods, type ActionType } from "./values.ts";

/** Headers the service sets on every HttpRequest call; settings may not override them. */
export const webhookSignatureHeader = "X-Signature";
export const webhookTimestampHeader = "X-Signature-Timestamp";
const reservedHeaders = new Set(
  ["host", "content-length", "connection", "transfer-encoding", "keep-alive", "upgrade", "te", "trailer"].concat(
    [webhookSignatureHeader, webhookTimestampHeader].map((name) => name.toLowerCase()),
  ),
);

const messageEntries = {
  fallback: v.optional(v.pipe(v.string(), maxChars(255)), ""),
  fromPhoneNumberId: v.optional(ResourceIdSchema),
};

export const SendSmsSettingsSchema = settingsSchema(
  "Sends an SMS to the lead through the messaging pipeline (compliance, quiet hours, billing apply).",
  { body: templateSchema(automationLimits.messageBodyLength), ...messageEntries },
);

export const SendMmsSettingsSchema = settingsSchema("Sends an MMS (media with optional text) to the lead.", {
  body: v.optional(templateSchema(automationLimits.messageBodyLength)),
  mediaUrls: v.pipe(v.array(HttpUrlSchema), v.minLength(1), v.maxLength(automationLimits.mmsMedia)),
  ...messageEntries,
});

export const WaitSettingsSchema = v.pipe(
  settingsSchema("Pauses the run for a duration, or until the next time of day in the organization's time zone.", {
    durationSeconds: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(automationLimits.maxWaitSeconds)),
    ),
    untilTime: v.optional(ClockTimeSchema),
  }),
  exactlyOne(["durationSeconds", "untilTime"]),
);

const HeaderNameSchema = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "Must be a valid HTTP header name."),
  v.check(
    (name) => !reservedHeaders.has(name.toLowerCase()),
    "This header is set by the service and cannot be configured.",
  ),
);

export const HttpRequestSettingsSchema = v.pipe(
  settingsSchema(
    `Calls a receiver (webhook). With a secret, the request carries ${webhookTimestampHeader} and ${webhookSignatureHeader}: sha256=HMAC-SHA256(secret, timestamp + "." + body).`,
    {
      url: HttpUrlSchema,
      method: v.optional(v.picklist(httpMethods), "POST"),
      headers: v.optional(
        v.pipe(
          v.record(HeaderNameSchema, v.pipe(v.string(), v.maxLength(1024), v.regex(/^[^\r\n]*$/, "Must be one line."))),
          v.maxEntries(automationLimits.httpHeaders),
        ),
      ),
      body: v.optional(templateSchema(automationLimits.httpBodyLength)),
      secret: v.optional(v.pipe(v.string(), v.minLength(16), v.maxLength(256))),
      timeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(30_000)), 10_000),
      maxRetries: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10)), 3),
    },
  ),
  problemCheck((settings) =>
    (settings.method ?? "POST") === "GET" && settings.body !== undefined
      ? "A GET request cannot have a body."
      : undefined,
  ),
);

export const UpdateLeadSettingsSchema = settingsSchema("Sets lead fields to fixed values (null clears a field).", {
  fields: v.pipe(
    v.record(
      v.pipe(v.string(), problemCheck(writableFieldPathProblem)),
      v.nullable(
        v.union(
          [v.pipe(v.string(), v.maxLength(1000)), v.number(), v.boolean()],
          "Must be a string, a number, true/false or null.",
        ),
      ),
    ),
    v.minEntries(1),
    v.maxEntries(automationLimits.updateLeadFields),
  ),
});

export const AddToSuppressionSettingsSchema = settingsSchema(
  "Adds the lead's phone number to the organization's suppression list.",
  { reason: v.optional(text(255)) },
);

export const PlaceCallSettingsSchema = settingsSchema(
  "Places an outbound call to the lead, optionally bridged to an agent number when answered.",
  {
    fromPhoneNumberId: v.optional(ResourceIdSchema),
    connectTo: v.optional(E164Schema),
    timeoutSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(5), v.maxValue(120)), 30),
  },
);

export const AssignLeadSettingsSchema = settingsSchema(
  "Assigns the lead to a user of the organization, or without userId routes it by the organization's routing rules (a lead that already has an assignee keeps it).",
  { userId: v.optional(ResourceIdSchema) },
);

export const StopSettingsSchema = settingsSchema("Ends the run successfully.", {});

/* @__NO_SIDE_EFFECTS__ */
function action<const TType extends ActionType, TSettings extends v.GenericSchema<Record<string, unknown>>>(
  type: TType,
  settings: TSettings,
) {
  return nodeSchema(type, { order: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))) }, settings);
}

/** An action node: one step of the workflow. `type` selects the settings schema. */
export const ActionSchema = v.variant("type", [
  action("SendSms", SendSmsSettingsSchema),
  action("SendMms", SendMmsSettingsSchema),
  action("Wait", WaitSettingsSchema),
  action("HttpRequest", HttpRequestSettingsSchema),
  action("UpdateLead", UpdateLeadSettingsSchema),
  action("AddToSuppression", AddToSuppressionSettingsSchema),
  action("PlaceCall", PlaceCallSettingsSchema),
  action("AssignLead", AssignLeadSettingsSchema),
  action("Stop", StopSettingsSchema),
]);

export type ActionInput = v.InferInput<typeof ActionSchema>;
export type Action = v.InferOutput<typeof ActionSchema>;

/** The `X-Signature` value of an HttpRequest call: `sha256=` and the hex HMAC-SHA256 of `${timestamp}.${body}`. */
export function webhookSignature(secret: string, timestampSeconds: number, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestampSeconds}.${body}`).digest("hex")}`;
}
