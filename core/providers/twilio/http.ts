import { ProviderError } from "#core/providers/port";
import { twilioError } from "#core/providers/twilio/errors";

export type Form = [string, string][];

/**
 * One Twilio REST request (any of its hosts: api, trusthub, messaging): a form
 * POST, or a GET/DELETE; HTTP basic with the API key. A transport failure is an
 * ambiguous transient error (the request may have arrived); an error answer is
 * classified by its Twilio code.
 */
export async function twilioRequest(input: {
  url: string;
  authorization: string | undefined;
  label: string;
  form?: Form;
  method?: "DELETE";
  fetch: typeof fetch;
  timeoutMs?: number;
}): Promise<Record<string, unknown>> {
  if (!input.authorization)
    throw new ProviderError(
      "permanent",
      "provider_not_configured",
      "Twilio REST credentials (API key SID and secret) are not configured.",
    );
  let response: Response;
  try {
    response = await input.fetch(input.url, {
      method: input.method ?? (input.form ? "POST" : "GET"),
      headers: {
        authorization: input.authorization,
        ...(input.form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
        accept: "application/json",
      },
      ...(input.form ? { body: new URLSearchParams(input.form).toString() } : {}),
      signal: AbortSignal.timeout(input.timeoutMs ?? 10_000),
    });
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    throw new ProviderError(
      "transient",
      timedOut ? "timeout" : "network_error",
      `Twilio ${input.label} request failed: ${(error as Error).message}`,
      { ambiguous: true },
    );
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text === "" ? {} : JSON.parse(text);
  } catch {
    body = {};
  }
  if (!response.ok)
    throw twilioError({ httpStatus: response.status, body, retryAfter: response.headers.get("retry-after") });
  return body as Record<string, unknown>;
}
