import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import { carrierRequests } from "#tests/helpers/carriers";
import { killedAfterWrite } from "#tests/helpers/crash";
import { send, waitForMessage } from "#tests/helpers/messaging";
import { apiEvent, lambdaContext } from "#tests/helpers/events";
import type { TestOrganization, TestResponse } from "#tests/helpers/stack";

/** 10DLC registration requests the tests send (tests/http/carrier-registration.test.ts, tests/integration/registration-crash.test.ts). */

/** A brand request of a roofing business (its display name unique per test, for the fakes' records). */
export const brandBody = (displayName: string) => ({
  entityType: "PRIVATE_PROFIT",
  legalName: `${displayName} LLC`,
  displayName,
  ein: "12-3456789",
  phone: "(212) 555-0100",
  email: "compliance@acme-roofing.example",
  website: "https://acme-roofing.example",
  street: "1 Main St",
  city: "New York",
  state: "ny",
  postalCode: "10001",
  vertical: "CONSTRUCTION",
});

export const campaignBody = (
  description = "Replies to homeowners who asked Acme Roofing for a quote through the website form.",
) => ({
  useCase: "CUSTOMER_CARE",
  description,
  sampleMessages: [
    "Hi Sam, this is Acme Roofing about your quote request. When can we visit? Reply STOP to opt out.",
    "Acme Roofing: your inspection is booked for Tuesday 10am. Reply STOP to opt out.",
  ],
  messageFlow:
    "Homeowners fill in the quote form at https://acme-roofing.example/quote and tick a box agreeing to texts about their request.",
  helpMessage: "Acme Roofing: call 212-555-0100 or email help@acme-roofing.example. Reply STOP to opt out.",
  optOutMessage: "Acme Roofing: you are unsubscribed and will receive no further messages.",
});

export const uniqueName = () => `Acme Roofing ${randomUUID().slice(0, 8)}`;

/** The write that stores a 10DLC or toll-free submission before the carrier is asked (core/carrier-registration). */
const SUBMISSION_STORED = /"entity":(\{"S":)?"TenDlcSubmission"/;

/**
 * The first keyed request dies right after storing its submission: the carrier is asked, the write of its answer dies
 * (tests/helpers/crash.ts: only the process is cut short). The client retries with the same Idempotency-Key.
 */
export async function killedThenRetried(
  org: TestOrganization,
  path: string,
  handler: (event: ReturnType<typeof apiEvent>, context: ReturnType<typeof lambdaContext>) => Promise<unknown>,
  body: unknown,
  route?: { routeKey: string; pathParameters: Record<string, string> },
): Promise<TestResponse> {
  const key = randomUUID();
  const event = apiEvent({
    method: "POST",
    path,
    body,
    headers: { authorization: `Bearer ${org.ownerToken}`, "idempotency-key": key },
    ...route,
  });
  await killedAfterWrite(SUBMISSION_STORED, () =>
    handler(event, { ...lambdaContext(), getRemainingTimeInMillis: () => 3_000 }),
  );
  // A 409 while the first request could still be running, retried until its function timeout passed.
  let retry = await org.request("POST", path, { body, headers: { "idempotency-key": key } });
  for (const deadline = Date.now() + 30_000; retry.status === 409 && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    retry = await org.request("POST", path, { body, headers: { "idempotency-key": key } });
  }
  return retry;
}

/**
 * Sends through the API without choosing a sender and waits until Telnyx has it: answers the number chosen and the
 * `from` of every Telnyx send to `to` (each test's recipient is its own), which gating must keep to registered numbers.
 */
export async function sentAtTelnyx(
  org: TestOrganization,
  to: string,
  body: string,
): Promise<{ fromPhoneNumberId: string; froms: string[] }> {
  const accepted = await send(org, { to, body });
  expect(accepted.status).toBe(202);
  const handed = await waitForMessage(
    org,
    accepted.body.id,
    (message) => (message.status === "Sending" || message.status === "Sent") && !!message.providerMessageId,
  );
  const sends = (await carrierRequests(to)).filter((entry) => entry.path === "/v2/messages");
  return {
    fromPhoneNumberId: handed.fromPhoneNumberId,
    froms: sends.map((entry) => (entry.body as { from: string }).from),
  };
}
