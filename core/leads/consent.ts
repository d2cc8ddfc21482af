import { conditionally, table } from "#core/db/items";
import { keys } from "#core/db/keys";

/** A change of a lead's SMS consent, from an inbound keyword (spec 2.4 consent fields). */
export type ConsentChange =
  | { kind: "OptOut"; at: string; phoneNumber: string }
  | { kind: "OptIn"; at: string; phoneNumber: string }
  | { kind: "Help"; at: string };

/**
 * Updates a lead's consent fields (metadata.smsOptedOut, smsOptOutAt,
 * smsConsentStatus, smsOptInAt, smsHelpRequestedAt, smsConsentPhoneNumber) in
 * place, without touching the rest of the lead. Used by messaging when a
 * contact texts STOP, START or HELP. A lead that no longer exists is ignored.
 */
export async function recordLeadConsent(organizationId: string, leadId: string, change: ConsentChange): Promise<void> {
  const fields: Record<string, unknown> =
    change.kind === "OptOut"
      ? { smsOptedOut: true, smsOptOutAt: change.at, smsConsentStatus: "OptedOut", smsConsentPhoneNumber: change.phoneNumber }
      : change.kind === "OptIn"
        ? { smsOptedOut: false, smsOptInAt: change.at, smsConsentStatus: "OptedIn", smsConsentPhoneNumber: change.phoneNumber }
        : { smsHelpRequestedAt: change.at };
  const names: Record<string, string> = { "#metadata": "metadata", "#modifiedAt": "modifiedAt", "#modifiedOrder": "gsi6sk" };
  const values: Record<string, unknown> = { ":map": "M", ":modifiedAt": change.at, ":modifiedOrder": keys.leadsByModified(organizationId, change.at, leadId).gsi6sk };
  const sets = Object.entries(fields).map(([field, value]) => {
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    return `#metadata.#${field} = :${field}`;
  });
  await conditionally(
    table.update({
      Key: keys.lead(organizationId, leadId),
      UpdateExpression: `SET ${sets.join(", ")}, #modifiedAt = :modifiedAt, #modifiedOrder = :modifiedOrder`,
      ConditionExpression: "attribute_exists(pk) AND attribute_type(#metadata, :map)",
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
}
