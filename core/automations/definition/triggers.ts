import * as v from "valibot";
import {
  exactlyOne,
  humanize,
  nodeSchema,
  problemCheck,
  ResourceIdListSchema,
  settingsSchema,
  text,
} from "./common.ts";
import { parseCron } from "./time.ts";
import { messageFailureStatuses, type TriggerType } from "./values.ts";

export const LeadCreatedSettingsSchema = settingsSchema("A lead was created (after intake processing).", {
  sourceIds: v.optional(ResourceIdListSchema),
});

export const MessageReceivedSettingsSchema = settingsSchema("The lead sent an inbound SMS/MMS (opt-out keywords excluded).", {
  phoneNumberIds: v.optional(ResourceIdListSchema),
  keywords: v.optional(v.pipe(v.array(text(160)), v.minLength(1), v.maxLength(50))),
});

export const MessageFailedSettingsSchema = settingsSchema("An outbound message to the lead ended Failed or Undeliverable.", {
  statuses: v.optional(v.pipe(v.array(v.picklist(messageFailureStatuses)), v.minLength(1)), () => [...messageFailureStatuses]),
  phoneNumberIds: v.optional(ResourceIdListSchema),
});

export const CallMissedSettingsSchema = settingsSchema("An inbound call from the lead was not answered.", {
  phoneNumberIds: v.optional(ResourceIdListSchema),
});

export const LeadOptedOutSettingsSchema = settingsSchema("The lead opted out of SMS (STOP and its synonyms).", {});

export const ScheduleSettingsSchema = v.pipe(
  settingsSchema("Fires on a cron expression or every N minutes, in the organization's time zone.", {
    cron: v.optional(
      v.pipe(
        v.string(),
        problemCheck<string>((expression) => {
          const parsed = parseCron(expression);
          return parsed.ok ? undefined : parsed.problem;
        }),
      ),
    ),
    intervalMinutes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(7 * 24 * 60))),
  }),
  exactlyOne(["cron", "intervalMinutes"]),
);

export const ManualSettingsSchema = settingsSchema("Started by a person or API call for one lead (the test button).", {});

function trigger<const TType extends TriggerType, TSettings extends v.GenericSchema<Record<string, unknown>>>(
  type: TType,
  settings: TSettings,
) {
  return nodeSchema(type, { displayName: v.optional(text(255), humanize(type)) }, settings);
}

/** A trigger node: what starts a run. `type` selects the settings schema. */
export const TriggerSchema = v.variant("type", [
  trigger("LeadCreated", LeadCreatedSettingsSchema),
  trigger("MessageReceived", MessageReceivedSettingsSchema),
  trigger("MessageFailed", MessageFailedSettingsSchema),
  trigger("CallMissed", CallMissedSettingsSchema),
  trigger("LeadOptedOut", LeadOptedOutSettingsSchema),
  trigger("Schedule", ScheduleSettingsSchema),
  trigger("Manual", ManualSettingsSchema),
]);

export type TriggerInput = v.InferInput<typeof TriggerSchema>;
export type Trigger = v.InferOutput<typeof TriggerSchema>;
