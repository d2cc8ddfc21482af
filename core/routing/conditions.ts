/**
 * Whether a lead matches a routing rule's conditions (docs/routing.md): pure, so it is unit-tested without storage.
 */
import type { Lead } from "#core/leads/schemas";
import { areaCodeState } from "#core/routing/area-codes";
import type { RoutingConditions } from "#core/routing/schemas";
import { compare, isDecimal } from "#core/shared/money";
import { parsePhone } from "#core/shared/phone";

/**
 * The lead's state as rule conditions see it: its street address's, else the state of its phone's US area code
 * (a lead from +1 305… with no address is in FL). Undefined when neither says.
 */
export function leadState(lead: Lead): string | undefined {
  const written = lead.contact.streetAddress?.state?.trim().toUpperCase();
  if (written) return written;
  const number = lead.contact.phone?.number;
  const areaCode = number ? parsePhone(number)?.areaCode : undefined;
  return areaCode ? areaCodeState(areaCode) : undefined;
}

const oneOf = (wanted: string[] | undefined, actual: string | null | undefined) =>
  !wanted || (actual != null && wanted.some((value) => value.toLowerCase() === actual.trim().toLowerCase()));

/** Within the bounds (both inclusive); a lead without a price matches no price condition. */
function priced(bounds: RoutingConditions["price"], price: string | null) {
  if (!bounds) return true;
  if (price === null || !isDecimal(price)) return false;
  return (
    (bounds.min === undefined || compare(price, bounds.min) >= 0) &&
    (bounds.max === undefined || compare(price, bounds.max) <= 0)
  );
}

/** Every condition given holds (an absent one matches anything); within one, any of its values. */
export function matchesConditions(conditions: RoutingConditions, lead: Lead): boolean {
  const { metadata } = lead;
  return (
    oneOf(conditions.sourceIds, lead.sourceId) &&
    oneOf(conditions.verticals, metadata.vertical) &&
    oneOf(conditions.products, metadata.product) &&
    oneOf(conditions.utmSources, metadata.utmSource) &&
    oneOf(conditions.utmMediums, metadata.utmMedium) &&
    oneOf(conditions.utmCampaigns, metadata.utmCampaign) &&
    priced(conditions.price, metadata.price) &&
    // Last: the only condition that may parse a phone number.
    (!conditions.states || oneOf(conditions.states, leadState(lead)))
  );
}
