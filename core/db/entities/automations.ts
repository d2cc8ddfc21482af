import { defineEntity } from "#core/db/entity";
import { automationsKeys } from "#core/db/keys/automations";
import { org } from "#core/db/keys/shared";

/** What identifies an automation: its organization and id (the rest of the stored definition beside). */
type StoredAutomation = { organizationId: string; id: string } & Record<string, unknown>;

/**
 * The Automation entity (docs/data-model.md): one item per automation definition under its organization, in the
 * order of its ULID id. Its trigger index entries and immutable versions are items of their own
 * (core/automations/runs).
 */
export const AutomationEntity = defineEntity({
  name: "Automation",
  attributes: [],
  key: ({ organizationId, id }: { organizationId: string; id: string }) =>
    automationsKeys.automation(organizationId, id),
  identity: ({ organizationId, id }: StoredAutomation) => ({ organizationId, id }),
  /** The organization's automations, oldest first (ULID ids). */
  collection: {
    name: "byCreation",
    pk: (automation: StoredAutomation) => org(automation.organizationId),
    sk: (automation: StoredAutomation) => `AUTOMATION#${automation.id ?? ""}`,
  },
  indexes: {},
});
