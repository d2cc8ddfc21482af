import { providerByName, verifiedProvider, type Registrars } from "#core/providers/index";
import type { WebhookRequest, ProviderPort } from "#core/providers/port";
import { createTelnyxRegistrar } from "#core/providers/telnyx/registration";
import { createTwilioRegistrar } from "#core/providers/twilio/registration";

/**
 * Carrier adapters with their `registration` (10DLC brands and campaigns, toll-free verification): what carrier
 * registration talks to. Apart from `core/providers/index.ts` so that only the functions that register bundle the
 * registrars (~13 KB), not every function that sends, calls or takes a carrier callback. The same adapters otherwise
 * (same settings, same availability); the simulator's registrar comes with the simulator.
 */
const registrars: Registrars = { twilio: createTwilioRegistrar, telnyx: createTelnyxRegistrar };

/** `providerByName`, with the carrier's registrar. */
export function registeringProvider(name: string): ProviderPort | undefined {
  return providerByName(name, registrars);
}

/** `verifiedProvider`, with the carrier's registrar (its registration status callbacks). */
export function verifiedRegisteringProvider(name: string, request: WebhookRequest): ProviderPort {
  return verifiedProvider(name, request, registrars);
}
