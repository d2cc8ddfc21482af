import { randomBytes } from "node:crypto";
import { signedPost, SIMULATOR_ACCOUNT_SID } from "#core/providers/simulator/adapter";

/**
 * Simulates a contact calling one of our numbers: the provider's inbound-call
 * webhook (ringing), then its status callbacks, signed like Twilio, in order:
 * `answered` → in-progress, then completed after `durationSeconds` of talk;
 * `missed` → no-answer (or `busy`/`canceled`, e.g. the caller hung up while ringing).
 */
export async function simulateInboundCall(input: {
  baseUrl: string;
  authToken: string;
  from: string;
  to: string;
  outcome: "answered" | "no-answer" | "busy" | "canceled";
  durationSeconds?: number;
  providerCallId?: string;
}): Promise<{ providerCallId: string; statuses: number[] }> {
  const providerCallId = input.providerCallId ?? `CA${randomBytes(16).toString("hex")}`;
  const base = input.baseUrl.replace(/\/$/, "");
  const params = (status: string, extra: [string, string][] = []): [string, string][] => [
    ["AccountSid", SIMULATOR_ACCOUNT_SID],
    ["CallSid", providerCallId],
    ["CallStatus", status],
    ["Direction", "inbound"],
    ["From", input.from],
    ["To", input.to],
    ["Timestamp", new Date().toUTCString()],
    ...extra,
  ];
  const statuses: number[] = [];
  const post = async (path: string, form: [string, string][]) => statuses.push((await signedPost(input.authToken, `${base}${path}`, form)).status);
  await post("/webhooks/simulator/calls/inbound", params("ringing"));
  if (input.outcome === "answered") {
    await post("/webhooks/simulator/calls/status", params("in-progress"));
    await post("/webhooks/simulator/calls/status", params("completed", [["CallDuration", String(input.durationSeconds ?? 30)]]));
  } else {
    await post("/webhooks/simulator/calls/status", params(input.outcome));
  }
  return { providerCallId, statuses };
}
