import * as PhoneNumbers from "#core/messaging/phone-numbers";
import { type NumberRoute } from "#core/messaging/phone-numbers";
import { toE164 } from "#core/shared/phone";

/**
 * The route of our number as a provider callback writes it (any format); undefined for a malformed number or a number
 * of nobody. Apart from `PhoneNumbers` because it parses the number (libphonenumber-js, ~123 KB): only the carrier
 * callbacks need it, not every bundle that reads a number.
 */
export async function routeOf(raw: string | undefined): Promise<NumberRoute | undefined> {
  const e164 = raw ? toE164(raw) : undefined;
  return e164 ? PhoneNumbers.route(e164) : undefined;
}
