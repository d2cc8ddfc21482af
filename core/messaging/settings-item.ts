import { keys } from "#core/db/keys";
import { warmReads } from "#core/db/warm";

/**
 * The stored messaging settings item, read once per warm instance every
 * `warmReadMs` (the outbound path reads it for the provider, quiet hours and
 * keywords of every message); `PUT /messaging/settings` forgets it here.
 */
const reads = warmReads();

export const storedSettingsItem = {
  read: (organizationId: string) => reads.get(keys.messagingSettings(organizationId)),
  /** `read`'s item joining a batch of other reads (a send's first read), when this instance does not hold it warm. */
  readWith: (organizationId: string) => reads.planned(keys.messagingSettings(organizationId)),
  forget: (organizationId: string) => reads.forget(keys.messagingSettings(organizationId)),
};
