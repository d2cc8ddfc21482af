import { ForbiddenError, NotFoundError } from "#core/errors";
import { providerByName } from "#core/providers/index";
import type { ProviderPort, WebhookRequest } from "#core/providers/port";

/** A provider callback whose signature holds: the adapter that checked it, and our own ids from the URL we gave the provider. */
export interface VerifiedRequest {
  provider: ProviderPort;
  /** Our id of the message or call the callback is about, from the query of the callback URL (covered by the signature). */
  ourId(name: "messageId" | "callId"): string | undefined;
}

/**
 * The first step of every provider webhook (messages and calls): the provider
 * named in the path (404 when it is not in use here) and its signature over
 * exactly this URL and body (unsigned or wrong: 403). Nothing of the request
 * is trusted before this.
 */
export function verifiedRequest(providerName: string, request: WebhookRequest): VerifiedRequest {
  const provider = providerByName(providerName);
  if (!provider) throw new NotFoundError("Provider", providerName);
  if (!provider.verifyWebhookSignature(request)) throw new ForbiddenError("The webhook signature is missing or does not match.");
  return { provider, ourId: (name) => new URL(request.url).searchParams.get(name) ?? undefined };
}
