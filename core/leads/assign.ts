import { table } from "#core/db/items";
import { keys } from "#core/db/keys";
import { leadOrderSets, type Lead } from "#core/leads/index";
import { nowIso } from "#core/shared/ids";

const objectFields = new Set(["contact.streetAddress", "metadata.sourceMetadata"]);
const valueObjects = new Set(["customer.gender", "customer.maritalStatus", "customer.employmentType"]);

/**
 * Writes fixed values into the lead (an automation's UpdateLead action): plain
 * fields one by one, nested objects merged and written whole, the ordered-list
 * index keys kept exact. Answers what was written, by path.
 */
export async function assignLeadFields(organizationId: string, lead: Lead, fields: Record<string, string | number | boolean | null>): Promise<Record<string, unknown>> {
  const names: Record<string, string> = {};
  const modifiedAt = nowIso();
  const values: Record<string, unknown> = { ":modifiedAt": modifiedAt };
  const assignments = new Map<string, unknown>();
  for (const [path, value] of Object.entries(fields)) {
    const [root = "", field = "", ...rest] = path.split(".");
    const top = `${root}.${field}`;
    if (objectFields.has(top) && rest.length > 0) {
      const current = (assignments.get(top) ?? (lead as unknown as Record<string, Record<string, unknown>>)[root]?.[field] ?? {}) as Record<string, unknown>;
      assignments.set(top, { ...current, [rest.join(".")]: value });
    } else if (valueObjects.has(top)) {
      assignments.set(top, value === null ? null : { value: String(value) });
    } else assignments.set(top, value);
  }
  const sets = [...assignments].map(([path, value], index) => {
    const [root = "", field = ""] = path.split(".");
    names[`#r${index}`] = root;
    names[`#f${index}`] = field;
    values[`:v${index}`] = value;
    return `#r${index}.#f${index} = :v${index}`;
  });
  await table.update({
    Key: keys.lead(organizationId, lead.id),
    UpdateExpression: `SET ${[...sets, ...leadOrderSets(organizationId, lead, assignments, modifiedAt, values)].join(", ")}`,
    ConditionExpression: "attribute_exists(pk)",
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
  return Object.fromEntries(assignments);
}
