import { inject } from "vitest";
import { changeMessage } from "#core/messaging/store";
import { simulateInboundMessage, simulatorAuthToken } from "#core/providers/simulator/adapter";
import { parsePhone } from "#core/shared/phone";
import { baseUrl, waitForResource, type TestOrganization } from "#tests/helpers/stack";

/** A random valid number in an area code (never a simulator magic number). */
export function randomNumber(areaCode = "212"): string {
  for (;;) {
    const exchange = 200 + Math.floor(Math.random() * 700);
    if (exchange === 555) continue;
    const candidate = `+1${areaCode}${exchange}${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`;
    if (parsePhone(candidate)) return candidate;
  }
}

/** A simulator magic destination (+1 NPA 555 01XX): the two digits pick the outcome (docs/provider-simulator.md). */
export const magic = (scenario: string, areaCode = "212") => `+1${areaCode}55501${scenario}`;

export async function addNumber(
  org: TestOrganization,
  areaCode = "212",
  capabilities = ["sms", "mms", "voice"],
  messagesPerSecond?: number,
) {
  const body = {
    phoneNumber: randomNumber(areaCode),
    friendlyName: `Line ${areaCode}`,
    capabilities,
    ...(messagesPerSecond ? { messagesPerSecond } : {}),
  };
  const response = await org.request("POST", "/phone-numbers", { body });
  if (response.status !== 201)
    throw new Error(`phone number not created: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; phoneNumber: string };
}

export async function createLead(org: TestOrganization, phone: string, state?: string) {
  const response = await org.request("POST", "/leads", {
    body: { contact: { firstName: "Dana", phone: { number: phone }, ...(state ? { streetAddress: { state } } : {}) } },
  });
  if (response.status >= 300) throw new Error(`lead not created: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string };
}

/**
 * An outbound message only this test process handles: accepted a day ahead (so the stack's consumer leaves it
 * alone), then moved to Queued as a consumer would read it. Answers the Queued message.
 */
export async function queuedOutsideTheStack(org: TestOrganization, to: string, body = "hello") {
  const accepted = await send(org, { to, body, scheduledFor: new Date(Date.now() + 86_400_000).toISOString() });
  if (accepted.status !== 202)
    throw new Error(`message not accepted: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  await waitForMessage(org, accepted.body.id, (message) => message.status === "Scheduled");
  const queued = await changeMessage(org.organizationId, accepted.body.id, {
    from: ["Scheduled"],
    set: { status: "Queued", queuedAt: new Date().toISOString() },
  });
  if (!queued) throw new Error("the message moved on before the test could queue it");
  return queued;
}

export async function send(org: TestOrganization, body: Record<string, unknown>, token?: string) {
  return org.request("POST", "/messages", { body, ...(token ? { token } : {}) });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls a message until `done` holds (default: a final status), failing after `timeoutMs`. */
export async function waitForMessage(
  org: TestOrganization,
  messageId: string,
  done: (message: any) => boolean = (message) =>
    ["Delivered", "Undelivered", "Failed", "Blocked", "Canceled"].includes(message.status),
  timeoutMs = 15_000,
): Promise<any> {
  return waitForResource(org, `/messages/${messageId}`, done, timeoutMs, `message ${messageId}`);
}

/** The organization's events (all pages), optionally narrowed by query parameters. */
export async function events(org: TestOrganization, query: Record<string, string> = {}): Promise<any[]> {
  const items: any[] = [];
  let continuationToken: string | null = null;
  const search = new URLSearchParams(query).toString();
  do {
    const response: { status: number; body: any } = await org.request(
      "POST",
      `/events/all/my${search ? `?${search}` : ""}`,
      {
        body: continuationToken ? { continuationToken, pageSize: 200 } : { pageSize: 200 },
      },
    );
    if (response.status !== 200) throw new Error(`events: ${response.status} ${JSON.stringify(response.body)}`);
    items.push(...response.body.items);
    continuationToken = response.body.continuationToken;
  } while (continuationToken);
  return items;
}

/** Polls the events until `done` holds for them (an event is recorded just after the change it records). */
export async function eventsWhen(
  org: TestOrganization,
  query: Record<string, string>,
  done: (items: any[]) => boolean,
  timeoutMs = 10_000,
): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const items = await events(org, query);
    if (done(items) || Date.now() > deadline) return items;
    await sleep(100);
  }
}

/** A contact texts one of our numbers, through the simulator's signed inbound webhook. */
export function textFrom(
  from: string,
  to: string,
  body: string,
  providerMessageId?: string,
  optOutType?: "STOP" | "START" | "HELP",
) {
  const stackEnv = inject("stackEnv");
  return simulateInboundMessage({
    baseUrl: baseUrl(),
    authToken: simulatorAuthToken(stackEnv.TOKEN_SIGNING_KEY!),
    from,
    to,
    body,
    ...(providerMessageId ? { providerMessageId } : {}),
    ...(optOutType ? { optOutType } : {}),
  });
}

export { sleep };
