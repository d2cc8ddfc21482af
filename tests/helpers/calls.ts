import { inject } from "vitest";
import { simulatorAuthToken } from "#core/providers/simulator/adapter";
import { simulateInboundCall } from "#core/providers/simulator/calls";
import { sleep } from "#tests/helpers/messaging";
import { baseUrl, type TestOrganization } from "#tests/helpers/stack";

const FINAL = ["Completed", "Busy", "NoAnswer", "Failed", "Canceled"];

/** Polls a call until `done` holds (default: a final status). */
export async function waitForCall(org: TestOrganization, callId: string, done: (call: any) => boolean = (call) => FINAL.includes(call.status), timeoutMs = 15_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    const response = await org.request("GET", `/calls/${callId}`);
    last = response.body;
    if (response.status === 200 && done(last)) return last;
    await sleep(100);
  }
  throw new Error(`call ${callId} did not reach the expected state; last: ${JSON.stringify(last)}`);
}

/** A contact calls one of our numbers, through the simulator's signed inbound-call webhook and callbacks. */
export function callFrom(from: string, to: string, outcome: "answered" | "no-answer" | "busy" | "canceled", durationSeconds?: number, providerCallId?: string) {
  return simulateInboundCall({
    baseUrl: baseUrl(),
    authToken: simulatorAuthToken(inject("stackEnv").TOKEN_SIGNING_KEY!),
    from,
    to,
    outcome,
    ...(durationSeconds !== undefined ? { durationSeconds } : {}),
    ...(providerCallId ? { providerCallId } : {}),
  });
}

/** Every page of endpoint 14 for a number (path segment as given). */
export async function callEventsOf(org: TestOrganization, phoneSegment: string, pageSize = 200): Promise<any[]> {
  const items: any[] = [];
  let continuationToken: string | null = null;
  do {
    const response: { status: number; body: any } = await org.request("POST", `/events/calls/phone/${phoneSegment}`, { body: { pageSize, ...(continuationToken ? { continuationToken } : {}) } });
    if (response.status !== 200) throw new Error(`call events: ${response.status} ${JSON.stringify(response.body)}`);
    items.push(...response.body.items);
    continuationToken = response.body.continuationToken;
  } while (continuationToken);
  return items;
}
