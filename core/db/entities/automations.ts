import { ownedEntity } from "#core/db/entities/owned";
import { automationsKeys } from "#core/db/keys/automations";

/**
 * The Automation entity (docs/data-model.md): one item per automation definition under its organization, in the
 * order of its ULID id. Its trigger index entries and immutable versions are items of their own
 * (core/automations/runs).
 */
export const AutomationEntity = ownedEntity("Automation", automationsKeys.automation, "AUTOMATION#");
