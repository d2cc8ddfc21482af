import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import * as v from "valibot";
import type { Actor } from "#core/auth/actor";
import { db, tableName } from "#core/db/client";
import { entities, keys } from "#core/db/keys";
import { DEFAULT_QUIET_HOURS_WINDOW, quietHoursWindowSchema } from "#core/messaging/quiet-hours";
import { Organizations, type Organization } from "#core/organizations/index";
import { nowIso } from "#core/shared/ids";

/** An organization's messaging settings; every field has a default. */
export const MessagingSettingsSchema = v.strictObject({
  quietHours: v.optional(quietHoursWindowSchema, DEFAULT_QUIET_HOURS_WINDOW),
  helpText: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(320))),
  optOutConfirmationText: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(320))),
  optInConfirmationText: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(320))),
});
export type MessagingSettingsInput = v.InferOutput<typeof MessagingSettingsSchema>;

export const MessagingSettingsResponseSchema = v.object({
  quietHours: v.object({ start: v.string(), end: v.string() }),
  helpText: v.string(),
  optOutConfirmationText: v.string(),
  optInConfirmationText: v.string(),
  modifiedAt: v.nullable(v.string()),
});
export type MessagingSettings = v.InferOutput<typeof MessagingSettingsResponseSchema>;

const defaults = (organizationName: string): Omit<MessagingSettings, "modifiedAt"> => ({
  quietHours: DEFAULT_QUIET_HOURS_WINDOW,
  helpText: `${organizationName}: reply STOP to unsubscribe, START to resubscribe. Msg & data rates may apply.`,
  optOutConfirmationText: `${organizationName}: you are unsubscribed and will receive no further messages. Reply START to resubscribe.`,
  optInConfirmationText: `${organizationName}: you are subscribed again. Reply STOP to unsubscribe, HELP for help.`,
});

export const MessagingSettingsStore = {
  /** `organization` lets a caller that reads the organization anyway share that read. */
  async read(
    organizationId: string,
    organization: Promise<Organization | undefined> = Organizations.fromId(organizationId),
  ): Promise<MessagingSettings> {
    const [{ Item }, owner] = await Promise.all([
      db().send(new GetCommand({ TableName: tableName(), Key: keys.messagingSettings(organizationId) })),
      organization,
    ]);
    const stored = (Item ?? {}) as Partial<MessagingSettings>;
    const base = defaults(owner?.name ?? "We");
    return {
      quietHours: stored.quietHours ?? base.quietHours,
      helpText: stored.helpText ?? base.helpText,
      optOutConfirmationText: stored.optOutConfirmationText ?? base.optOutConfirmationText,
      optInConfirmationText: stored.optInConfirmationText ?? base.optInConfirmationText,
      modifiedAt: stored.modifiedAt ?? null,
    };
  },

  /** `PUT /messaging/settings`: replaces the settings; omitted texts fall back to the defaults. */
  async replace(actor: Actor, input: MessagingSettingsInput): Promise<MessagingSettings> {
    const modifiedAt = nowIso();
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.messagingSettings(actor.organizationId), entity: entities.messagingSettings, ...input, modifiedAt },
      }),
    );
    return MessagingSettingsStore.read(actor.organizationId);
  },
};
