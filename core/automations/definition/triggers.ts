import * as v from "valibot";
import {
  exactlyOne,
  humanize,
  nodeSchema,
  problemCheck,
  ResourceIdListSchema,
  ResourceIdSchema,
  settingsSchema,
  text,
} from "./common.ts";
import { processingStatuses } from "#core/leads/schemas";
import { parseCron } from "./time.ts";
import { messageFailureStatuses, type TriggerType } from "./values.ts";

export const LeadCreatedSettingsSchema = settingsSchema("A lead was created (after intake processing).", {
  sourceIds: v.optional(ResourceIdListSchema),
});

export const MessageReceivedSettingsSchema = settingsSchema(
  "The lead sent an inbound SMS/MMS (opt-out keywords excluded).",
  {
    phoneNumberIds: v.optional(ResourceIdListSchema),
    keywords: v.optional(v.pipe(v.array(text(160)), v.minLength(1), v.maxLength(50))),
  },
);

export const MessageFailedSettingsSchema = settingsSchema(
  "An outbound message to the lead ended Failed or Undeliverable.",
  {
    statuses: v.optional(v.pipe(v.array(v.picklist(messageFailureStatuses)), v.minLength(1)), () => [
      ...messageFailureStatuses,
    ]),
    phoneNumberIds: v.optional(ResourceIdListSchema),
  },
);

export const CallMissedSettingsSchema = settingsSchema("An inbound call from the lead was not answered.", {
  phoneNumberIds: v.optional(ResourceIdListSchema),
});

export const LeadOptedOutSettingsSchema = settingsSchema("The lead opted out of SMS (STOP and its synonyms).", {});

/**
 * Which leads one firing of a Schedule trigger runs for (read by core/leads/audience, newest first): each matching
 * lead gets its own run. Lead fields as in spec 2.4 and the lead list filters.
 */
export const ScheduleAudienceSchema = v.pipe(
  v.strictObject({
    createdWithinDays: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(1),
        v.maxValue(90),
        v.description("Leads created in the last N days before the firing (default 30)."),
      ),
      30,
    ),
    sourceId: v.optional(v.pipe(ResourceIdSchema, v.description("Only leads of this source."))),
    processingStatus: v.optional(
      v.pipe(
        v.array(v.picklist(processingStatuses)),
        v.minLength(1),
        v.description("Only leads with one of these processing statuses (default Processed)."),
      ),
      () => ["Processed" as const],
    ),
    vertical: v.optional(v.pipe(text(100), v.description("Only leads whose metadata.vertical equals this."))),
    product: v.optional(v.pipe(text(100), v.description("Only leads whose metadata.product equals this."))),
    excludeOptedOut: v.optional(
      v.pipe(
        v.boolean(),
        v.description("Leave out leads that opted out of SMS or whose phone is suppressed (default true)."),
      ),
      true,
    ),
    maxLeads: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(1),
        v.maxValue(1000),
        v.description("At most this many leads per firing, newest first (default 500)."),
      ),
      500,
    ),
  }),
  v.description("Run once per matching lead instead of once without a lead."),
  v.examples([
    {
      createdWithinDays: 3,
      sourceId: "01J0SRC0000000000000000000",
      processingStatus: ["Processed"],
      excludeOptedOut: true,
      maxLeads: 500,
    },
  ]),
);

export const ScheduleSettingsSchema = v.pipe(
  settingsSchema(
    "Fires on a cron expression or every N minutes, in the organization's time zone; with `audience`, one run per matching lead.",
    {
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
      audience: v.optional(ScheduleAudienceSchema),
    },
  ),
  exactlyOne(["cron", "intervalMinutes"]),
);

export type ScheduleSettings = v.InferOutput<typeof ScheduleSettingsSchema>;

export const ManualSettingsSchema = settingsSchema(
  "Started by a person or API call for one lead (the test button).",
  {},
);

/* @__NO_SIDE_EFFECTS__ */
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
