import * as v from "valibot";
import type { Actor } from "#core/auth/actor";
import { MessagingSettingsSchema } from "#core/messaging/settings";
import { replaceMessagingSettings } from "#core/messaging/settings-replace";

/**
 * Turns quiet hours off for an organization the tests or benchmarks create: the default window (08:00-21:00 in the
 * recipient's zone) would otherwise schedule their sends whenever they run in a New York evening.
 */
export async function turnQuietHoursOff(organizationId: string): Promise<void> {
  const setup: Actor = { organizationId, kind: "apiKey", permissions: new Set(), displayName: "Setup" };
  await replaceMessagingSettings(
    setup,
    v.parse(MessagingSettingsSchema, { quietHours: { start: "00:00", end: "00:00" } }),
  );
}
