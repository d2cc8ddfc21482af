import { describe, expect, it } from "vitest";
import { systemActor } from "#core/auth/actor";
import * as Calls from "#core/calls/index";
import { dispatch as placeCall } from "#core/calls/placement";
import { sweepDueCalls } from "#core/calls/sweeper";
import * as Outbound from "#core/messaging/outbound";
import { sweepDueMessages } from "#core/messaging/sweeper";
import { newId } from "#core/shared/ids";
import { waitForCall } from "#tests/helpers/calls";
import { carrierRequests, onCarrier, scriptCarrier } from "#tests/helpers/carriers";
import { failPublishes, faultWhen } from "#tests/helpers/crash";
import { addNumber, queuedOutsideTheStack, randomNumber, waitForMessage } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";

const MINUTE = 60_000;

/**
 * Recovery of a cut-short hand-off through Twilio and Telnyx (#24, finding 2): neither takes an idempotency key, so
 * the sweep searches what the carrier took between the two numbers since the claim (Twilio's Messages and Calls
 * lists; Telnyx's message detail records and TeXML call list), through the local REST fakes that check each search's
 * exact filters. Found: its id is recorded, never sent twice. Not found: sent again once, Telnyx only after its
 * search has settled (TELNYX_SEARCH_SETTLE_MS, 5 min).
 */
const CARRIERS = [
  {
    carrier: "twilio" as const,
    messageSend: /^\/2010-04-01\/Accounts\/[^/]+\/Messages\.json$/,
    messageSearch: /^\/2010-04-01\/Accounts\/[^/]+\/Messages\.json\?To=%2B\d+&From=%2B\d+&PageSize=50$/,
    callPlace: /^\/2010-04-01\/Accounts\/[^/]+\/Calls\.json$/,
    callSearch: /^\/2010-04-01\/Accounts\/[^/]+\/Calls\.json\?To=%2B\d+&From=%2B\d+&PageSize=50$/,
    providerMessageId: /^SM[0-9a-f]{32}$/,
    providerCallId: /^CA[0-9a-f]{32}$/,
    settleMinutes: 0,
    accepted: 201,
  },
  {
    carrier: "telnyx" as const,
    messageSend: /^\/v2\/messages$/,
    messageSearch:
      /^\/v2\/detail_records\?filter%5Brecord_type%5D=messaging&filter%5Bdirection%5D=outbound&filter%5Bcli%5D=%2B\d+&filter%5Bcld%5D=%2B\d+&filter%5Bcreated_at%5D%5Bgte%5D=[^&]+&sort=created_at&page%5Bsize%5D=50$/,
    callPlace: /^\/v2\/texml\/calls\/\d+$/,
    callSearch: /^\/v2\/texml\/Accounts\/[^/]+\/Calls\?To=%2B\d+&From=%2B\d+&PageSize=50$/,
    providerMessageId: /^[0-9a-f-]{36}$/,
    providerCallId: /^v3:[0-9a-f-]{36}$/,
    settleMinutes: 5,
    accepted: 200,
  },
];

describe.each(CARRIERS)("a hand-off cut short at $carrier is recovered from the carrier's own records", (carrier) => {
  applyStackEnv();

  async function organization(): Promise<{ org: TestOrganization; ours: string }> {
    const org = await newOrganization();
    const ours = await addNumber(org);
    await onCarrier(org, carrier.carrier);
    return { org, ours: ours.phoneNumber };
  }

  /** What the fake received for `to`, as `METHOD path answered`, with the route named. */
  async function requestsTo(to: string, route: RegExp): Promise<string[]> {
    // By its digits: a search's query has the number URL-encoded (%2B…).
    return (await carrierRequests(to.slice(1)))
      .filter((request) => request.carrier === carrier.carrier && route.test(request.path))
      .map((request) => `${request.method} ${request.answered}`);
  }

  const sweepMessages = (org: TestOrganization, minutes: number) =>
    sweepDueMessages({ now: new Date(Date.now() + minutes * MINUTE), organizationId: org.organizationId });
  const sweepCalls = (org: TestOrganization, minutes: number) =>
    sweepDueCalls({ now: new Date(Date.now() + minutes * MINUTE), organizationId: org.organizationId });

  it("a message the carrier took whose answer was never stored: found by its numbers, time and body, not sent again", async () => {
    const { org } = await organization();
    const to = randomNumber("312");
    const queued = await queuedOutsideTheStack(org, to, `Your quote is ready ${newId()}`);
    const stop = faultWhen(queued.id, ':"providerMessageId"'); // the process dies as it records the carrier's answer (the write naming the attribute)
    try {
      await expect(Outbound.dispatch(org.organizationId, queued)).rejects.toThrow();
    } finally {
      stop();
    }
    expect(await sweepMessages(org, 3)).toMatchObject({ resent: 0, rechecked: 1 });
    const found = (await org.request("GET", `/messages/${queued.id}`)).body;
    expect(found).toMatchObject({ retryCount: 0, billingStatus: "Reserved", provider: carrier.carrier });
    expect(found.providerMessageId).toMatch(carrier.providerMessageId);
    expect(await requestsTo(to, carrier.messageSend)).toEqual([`POST ${carrier.accepted}`]);
    expect(await requestsTo(to, carrier.messageSearch)).toEqual(["GET 200"]);
  });

  it("a message the carrier never took (the connection dropped): sent again once, after the carrier's search has settled", async () => {
    const { org } = await organization();
    const to = randomNumber("312");
    await scriptCarrier(carrier.carrier, to, [{ dropConnection: true }]);
    const queued = await queuedOutsideTheStack(org, to, "Your quote is ready");
    await Outbound.dispatch(org.organizationId, queued); // ambiguous: kept Sending, no provider id
    expect((await org.request("GET", `/messages/${queued.id}`)).body).toMatchObject({
      status: "Sending",
      providerMessageId: null,
    });
    if (carrier.settleMinutes > 0) {
      // The carrier's records may lag: a miss this early is asked again later, never sent again.
      expect(await sweepMessages(org, 3)).toMatchObject({ resent: 0, rechecked: 1 });
      expect(await requestsTo(to, carrier.messageSend)).toEqual(["POST dropped"]);
    }
    expect(await sweepMessages(org, 3 + carrier.settleMinutes + 1)).toMatchObject({ resent: 1 });
    const sent = await waitForMessage(org, queued.id, (message) => message.providerMessageId !== null, 60_000);
    expect(sent).toMatchObject({ retryCount: 1, provider: carrier.carrier });
    expect(sent.providerMessageId).toMatch(carrier.providerMessageId);
    expect(await requestsTo(to, carrier.messageSend)).toEqual(["POST dropped", `POST ${carrier.accepted}`]);
  });

  /** A call stored with its hold whose queue message stays in this process: only this test places it. */
  async function callOutsideTheStack(org: TestOrganization, to: string): Promise<string> {
    const callId = newId();
    const stopPublish = await failPublishes();
    try {
      await expect(
        Calls.place(systemActor(org.organizationId), { to, record: false, metadata: {} }, { callId }),
      ).rejects.toThrow();
    } finally {
      stopPublish();
    }
    return callId;
  }

  it("a call the carrier placed whose answer was never stored: its provider id is recorded at the next check-in, not placed again", async () => {
    const { org } = await organization();
    const to = randomNumber("415");
    const callId = await callOutsideTheStack(org, to);
    const stop = faultWhen(`PROVIDERCALL#${carrier.carrier}#`); // the process dies as it records the carrier's answer
    try {
      await expect(placeCall(org.organizationId, callId)).rejects.toThrow();
    } finally {
      stop();
    }
    expect((await org.request("GET", `/calls/${callId}`)).body).toMatchObject({ status: "Queued", providerId: null });
    expect(await sweepCalls(org, 3)).toMatchObject({ checked: 1, errors: 0 });
    const found = (await org.request("GET", `/calls/${callId}`)).body;
    expect(found).toMatchObject({ status: "Queued", billingStatus: "Reserved" });
    expect(found.providerId).toMatch(carrier.providerCallId);
    expect(await requestsTo(to, carrier.callPlace)).toHaveLength(1);
    expect(await requestsTo(to, carrier.callSearch)).toEqual(["GET 200"]);
  });

  it("a call the carrier never placed (the connection dropped): placed again once, after the carrier's search has settled", async () => {
    const { org } = await organization();
    const to = randomNumber("415");
    await scriptCarrier(carrier.carrier, to, [{ dropConnection: true }]);
    const callId = await callOutsideTheStack(org, to);
    await placeCall(org.organizationId, callId); // ambiguous: the placement stays claimed, no provider id
    if (carrier.settleMinutes > 0) {
      expect(await sweepCalls(org, 3)).toMatchObject({ checked: 1, errors: 0 });
      expect(await requestsTo(to, carrier.callPlace)).toEqual(["POST dropped"]);
    }
    expect(await sweepCalls(org, 3 + carrier.settleMinutes + 1)).toMatchObject({ checked: 1, errors: 0 });
    const placed = await waitForCall(org, callId, (call) => call.providerId !== null, 60_000);
    expect(placed).toMatchObject({ status: "Queued", billingStatus: "Reserved" });
    expect(placed.providerId).toMatch(carrier.providerCallId);
    expect(await requestsTo(to, carrier.callPlace)).toEqual(["POST dropped", `POST ${carrier.accepted}`]);
  });
});
