import { inject } from "vitest";
import { signedPost, simulatorAuthToken } from "#core/providers/simulator/adapter";
import { simulateInboundCall } from "#core/providers/simulator/calls";
import { baseUrl, waitForResource, type TestOrganization } from "#tests/helpers/stack";

const FINAL = ["Completed", "Busy", "NoAnswer", "Failed", "Canceled"];

/** Polls a call until `done` holds (default: a final status). */
export async function waitForCall(
  org: TestOrganization,
  callId: string,
  done: (call: any) => boolean = (call) => FINAL.includes(call.status),
  timeoutMs = 15_000,
): Promise<any> {
  return waitForResource(org, `/calls/${callId}`, done, timeoutMs, `call ${callId}`);
}

/**
 * A contact calls one of our numbers, through the simulator: the signed inbound-call webhook, then whatever our
 * TwiML asks (a forwarded call's outcome is the forwarded number's scenario), then the end of the caller's leg.
 */
export function callFrom(from: string, to: string, options: { callerHangsUp?: boolean; providerCallId?: string } = {}) {
  return simulateInboundCall({ baseUrl: baseUrl(), authToken: simulatorToken(), from, to, ...options });
}

/** Posts a provider webhook form to a URL, signed as the simulator signs (a replayed or late callback). */
export async function postSigned(url: string, form: Record<string, string>): Promise<{ status: number; text: string }> {
  const response = await signedPost(simulatorToken(), url, Object.entries(form));
  return { status: response.status, text: await response.text() };
}

const simulatorToken = () => simulatorAuthToken(inject("stackEnv").TOKEN_SIGNING_KEY!);

/** Sets where the organization's inbound calls ring (null: nobody takes calls). */
export async function forwardCalls(
  org: TestOrganization,
  forwardTo: string | null,
  ringSeconds?: number,
): Promise<void> {
  const response = await org.request("PUT", "/messaging/settings", {
    body: { inboundCalls: { forwardTo, ...(ringSeconds ? { ringSeconds } : {}) } },
  });
  if (response.status !== 200) throw new Error(`settings: ${response.status} ${JSON.stringify(response.body)}`);
}

/** Every page of endpoint 14 for a number (path segment as given). */
export async function callEventsOf(org: TestOrganization, phoneSegment: string, pageSize = 200): Promise<any[]> {
  const items: any[] = [];
  let continuationToken: string | null = null;
  do {
    const response: { status: number; body: any } = await org.request("POST", `/events/calls/phone/${phoneSegment}`, {
      body: { pageSize, ...(continuationToken ? { continuationToken } : {}) },
    });
    if (response.status !== 200) throw new Error(`call events: ${response.status} ${JSON.stringify(response.body)}`);
    items.push(...response.body.items);
    continuationToken = response.body.continuationToken;
  } while (continuationToken);
  return items;
}
