import { table } from "#core/db/items";
import { LeadEntity } from "#core/db/entities/leads";
import { where } from "#core/db/expression";
import type { Lead } from "#core/leads/schemas";
import { nowIso } from "#core/shared/ids";

const objectFields = new Set(["contact.streetAddress", "metadata.sourceMetadata"]);
const valueObjects = new Set(["customer.gender", "customer.maritalStatus", "customer.employmentType"]);

/**
 * Writes fixed values into the lead (an automation's UpdateLead action): plain
 * fields one by one, nested objects merged and written whole (the entity keeps
 * the index keys exact). Answers what was written, by path.
 */
export async function assignLeadFields(
  organizationId: string,
  lead: Lead,
  fields: Record<string, string | number | boolean | null>,
): Promise<Record<string, unknown>> {
  const assignments = new Map<string, unknown>();
  for (const [path, value] of Object.entries(fields)) {
    const [root = "", field = "", ...rest] = path.split(".");
    const top = `${root}.${field}`;
    if (objectFields.has(top) && rest.length > 0) {
      const current = (assignments.get(top) ??
        (lead as unknown as Record<string, Record<string, unknown>>)[root]?.[field] ??
        {}) as Record<string, unknown>;
      assignments.set(top, { ...current, [rest.join(".")]: value });
    } else if (valueObjects.has(top)) {
      assignments.set(top, value === null ? null : { value: String(value) });
    } else assignments.set(top, value);
  }
  await table.update(
    LeadEntity.update(
      { ...lead, organizationId },
      { ...Object.fromEntries(assignments), modifiedAt: nowIso() },
      { condition: where.stored() },
    ),
  );
  return Object.fromEntries(assignments);
}
