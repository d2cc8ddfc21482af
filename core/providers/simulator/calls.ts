import { randomBytes } from "node:crypto";
import { signedPost, SIMULATOR_ACCOUNT_SID, TWILIO_CALL_WORD } from "#core/providers/simulator/adapter";
import { callScenario } from "#core/providers/simulator/numbers";

/** What the simulated carrier does with a `<Dial>` in our instructions. */
export type SimulatedDial = { forwardTo: string; timeoutSeconds: number; action: string; callerId: string | undefined };

/**
 * Simulates a contact calling one of our numbers, as Twilio runs it: posts the
 * inbound-call webhook (ringing) and follows the TwiML it answers.
 * - `<Dial>` (and a `<Dial>` in its action's answer): the forwarded number's scenario (docs/provider-simulator.md)
 *   decides the outcome (20 answered, 21 busy, 22 no-answer, 23 failed...),
 *   posted to the Dial's action URL (DialCallStatus, DialCallDuration), then
 *   the caller's leg ends `completed`.
 * - `<Say>`/`<Hangup/>`: the caller's leg ends `completed`.
 * - `<Reject>`: nothing more.
 * `callerHangsUp`: the caller gives up while the forwarded number rings (the
 * Dial ends `canceled`). Every request is signed like Twilio's.
 */
export async function simulateInboundCall(input: {
  baseUrl: string;
  authToken: string;
  from: string;
  to: string;
  callerHangsUp?: boolean;
  providerCallId?: string;
}): Promise<{
  providerCallId: string;
  statuses: number[];
  twiml: string;
  dial: SimulatedDial | undefined;
  /** Every Dial followed, in order (the first is `dial`); `dialTwiml` is the last one's answer. */
  dials: SimulatedDial[];
  dialTwiml: string | undefined;
}> {
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
  const post = async (url: string, form: [string, string][]) => {
    const response = await signedPost(input.authToken, url, form);
    statuses.push(response.status);
    return response.text();
  };
  const twiml = await post(`${base}/webhooks/simulator/calls/inbound`, params("ringing"));
  if (/<Reject\b/.test(twiml))
    return { providerCallId, statuses, twiml, dial: undefined, dials: [], dialTwiml: undefined };
  const dial = parseDial(twiml);
  const dials: SimulatedDial[] = [];
  let talkSeconds = 0;
  let dialTwiml: string | undefined;
  // A Dial's answer may Dial again (an assigned agent who did not answer, then the forwarding number): followed too.
  for (let next = dial; next && dials.length < 5; next = dialTwiml ? parseDial(dialTwiml) : undefined) {
    dials.push(next);
    const outcome = input.callerHangsUp ? { word: "canceled", talkSeconds: 0 } : dialOutcome(next.forwardTo);
    talkSeconds = outcome.talkSeconds;
    dialTwiml = await post(
      next.action,
      params("in-progress", [
        ["DialCallSid", `CA${randomBytes(16).toString("hex")}`],
        ["DialCallStatus", outcome.word],
        ["DialCallDuration", String(outcome.talkSeconds)],
      ]),
    );
  }
  // The caller's leg: our instructions answered it, so it ends `completed` whoever answered.
  await post(
    `${base}/webhooks/simulator/calls/status`,
    params("completed", [["CallDuration", String(talkSeconds + 5)]]),
  );
  return { providerCallId, statuses, twiml, dial, dials, dialTwiml };
}

/** DialCallStatus and talk time for ringing a number: its call scenario's final status (refused numbers fail). */
export function dialOutcome(forwardTo: string): { word: string; talkSeconds: number } {
  const scenario = callScenario(forwardTo);
  const final = scenario.sendError ? "Failed" : (scenario.callbacks.at(-1)?.status ?? "Failed");
  return { word: TWILIO_CALL_WORD[final], talkSeconds: final === "Completed" ? scenario.durationSeconds : 0 };
}

/** The first `<Dial><Number>` of a TwiML document, attributes unescaped. */
export function parseDial(twiml: string): SimulatedDial | undefined {
  const match = /<Dial\b([^>]*)>\s*<Number[^>]*>([^<]*)<\/Number>/.exec(twiml);
  if (!match) return undefined;
  const attributes = Object.fromEntries(
    [...(match[1] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map(([, name, value]) => [name, unescapeXml(value ?? "")]),
  );
  const action = attributes["action"];
  if (!action) return undefined;
  return {
    forwardTo: unescapeXml(match[2] ?? "").trim(),
    timeoutSeconds: Number(attributes["timeout"] ?? 30),
    action,
    callerId: attributes["callerId"],
  };
}

function unescapeXml(value: string): string {
  return value.replace(
    /&(amp|lt|gt|quot|apos);/g,
    (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" })[name] ?? "",
  );
}
