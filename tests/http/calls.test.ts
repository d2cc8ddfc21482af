import { describe, expect, it } from "vitest";
import * as Billing from "#core/billing/index";
import { fromUnits } from "#core/billing/prices";
import { storedReservation } from "#core/billing/reservations";
import * as Money from "#core/shared/money";
import { allLedgerEntries, balanceLess, setAvailableBalance } from "#tests/helpers/billing";
import { callEventsOf, callFrom, forwardCalls, postSigned, waitForCall } from "#tests/helpers/calls";
import { addNumber, createLead, events, magic, randomNumber, sleep } from "#tests/helpers/messaging";
import { baseUrl, newOrganization, type TestOrganization } from "#tests/helpers/stack";

/** Events are recorded just after the change they describe: poll until the expected one is listed. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await sleep(100);
    value = await read();
  }
  return value;
}

const placeCall = (org: TestOrganization, body: Record<string, unknown>, token?: string) =>
  org.request("POST", "/calls", { body, ...(token ? { token } : {}) });

describe("calls: outbound lifecycle through the simulator", () => {
  it("an answered call rings, is answered, completes and is charged per started minute", async () => {
    const org = await newOrganization();
    const from = await addNumber(org);
    const expected = await balanceLess(org, "0.02");
    const accepted = await placeCall(org, { to: magic("20"), metadata: { campaign: "spring" } });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({
      status: "Queued",
      direction: "Outbound",
      fromPhoneNumber: from.phoneNumber,
      fromPhoneNumberId: from.id,
      billingPhoneNumberId: from.id,
      callerId: from.phoneNumber,
      toPhoneNumber: magic("20"),
      billingStatus: "Reserved",
      businessId: org.organizationId,
      userId: org.userIds.owner,
      metadata: { campaign: "spring" },
    });
    // The hold taken at placement, read from its record: the wallet's reservedAmount is back to 0 as soon as the call
    // ends, and this one (scenario 20) can be over before a request sent right after the 202 is answered on a busy
    // machine. (A live call's hold in the wallet: calls-sweeper's ringing call, and the 50 concurrent calls below.)
    const hold = await storedReservation(org.organizationId, accepted.body.id);
    expect(hold).toMatchObject({ reservationId: accepted.body.id, relatedEntityType: "Call" });
    expect(fromUnits(hold!.amountUnits)).toBe("0.6000");
    const call = await waitForCall(org, accepted.body.id);
    expect(call).toMatchObject({
      status: "Completed",
      providerStatus: "completed",
      duration: 42,
      billableSeconds: 60,
      billableAmount: 0.02,
      billingStatus: "Charged",
      missed: false,
      statusReason: null,
      providerId: expect.stringMatching(/^CA/),
      provider: "simulator",
    });
    expect(Date.parse(call.answeredAt)).toBeLessThanOrEqual(Date.parse(call.endedAt));
    // ringingAt is not asserted: a real carrier's ringing and answered callbacks can cross, and a late ringing is ignored
    // (the simulator posts them in order, each after the previous one was answered).
    const wallet = (await org.request("GET", "/billing/wallet")).body;
    expect(wallet).toMatchObject({ balance: expected, reservedAmount: "0.0000", availableBalance: expected });
    const ledger = await allLedgerEntries(org);
    expect(ledger).toContainEqual(
      expect.objectContaining({
        entryType: "Charge",
        amount: "-0.0200",
        reason: "CallMinutes",
        callId: call.id,
        relatedEntityType: "Call",
        quantity: 60,
      }),
    );
    const timeline = await eventually(
      () => events(org),
      (all) => all.some((event) => event.eventType === "CallCompleted"),
    );
    const callEvents = timeline.filter((event) => event.relatedEntityId === call.id).map((event) => event.eventType);
    expect(callEvents).toEqual(expect.arrayContaining(["CallQueued", "CallAnswered", "CallCompleted"]));
    expect(timeline.find((event) => event.eventType === "CallCompleted")).toMatchObject({
      billingStatus: "Charged",
      billableAmount: 0.02,
      eventCategory: "Call",
    });
  });

  it("rounds a 125-second call up to 3 minutes and keeps the recording URL", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const long = await placeCall(org, { to: magic("24") });
    const recorded = await placeCall(org, { to: magic("25"), record: true });
    const [longCall, recordedCall] = await Promise.all([
      waitForCall(org, long.body.id),
      waitForCall(org, recorded.body.id),
    ]);
    expect(longCall).toMatchObject({ status: "Completed", duration: 125, billableSeconds: 180, billableAmount: 0.06 });
    expect(recordedCall).toMatchObject({
      status: "Completed",
      record: true,
      recordingUrl: expect.stringContaining(recordedCall.providerId),
    });
  });

  it.each([
    ["21", "Busy", "The line was busy."],
    ["22", "NoAnswer", "Nobody answered."],
    ["23", "Failed", "The call could not be connected. (31005)"],
    ["26", "Failed", "The provider refused the call: Invalid 'To' Phone Number"],
  ])("a call to scenario %s ends %s with its reason and releases its reservation", async (scenario, status, reason) => {
    const org = await newOrganization();
    await addNumber(org);
    const expected = await balanceLess(org, "0");
    const accepted = await placeCall(org, { to: magic(scenario) });
    expect(accepted.status).toBe(202);
    const call = await waitForCall(org, accepted.body.id);
    expect(call).toMatchObject({
      status,
      statusReason: reason,
      billingStatus: "Released",
      billableAmount: 0,
      billableSeconds: 0,
      duration: 0,
      answeredAt: null,
      missed: false,
    });
    expect(call.endedAt).toEqual(expect.any(String));
    const wallet = (await org.request("GET", "/billing/wallet")).body;
    expect(wallet).toMatchObject({ balance: expected, reservedAmount: "0.0000" });
  });

  it("calls a lead at the lead's number", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const lead = await createLead(org, magic("20", "415"));
    const accepted = await placeCall(org, { leadId: lead.id });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({
      leadId: lead.id,
      toPhoneNumber: magic("20", "415"),
      conversationId: expect.any(String),
    });
  });
});

describe("calls: inbound and missed calls", () => {
  const timelineOf = async (org: TestOrganization, callId: string, eventType: string) => {
    const timeline = await eventually(
      () => events(org),
      (all) => all.some((event) => event.relatedEntityId === callId && event.eventType === eventType),
    );
    return timeline.filter((event) => event.relatedEntityId === callId).map((event) => event.eventType);
  };

  it("without a forwarding number, says nobody can take the call, hangs up, and the call is missed although the provider reports completed", async () => {
    const org = await newOrganization();
    const ours = await addNumber(org);
    const caller = randomNumber("312");
    const simulated = await callFrom(caller, ours.phoneNumber);
    expect(simulated.statuses).toEqual([200, 200]);
    expect(simulated.twiml).toContain("<Say>Thank you for calling. Nobody can take your call right now");
    expect(simulated.twiml).toContain("<Hangup/></Response>");
    expect(simulated.twiml).not.toMatch(/<Pause|<Dial|connect you/);
    const call = await waitForCall(org, (await callEventsOf(org, encodeURIComponent(caller)))[0].id);
    expect(call).toMatchObject({
      direction: "Inbound",
      status: "NoAnswer",
      providerStatus: "completed",
      missed: true,
      answeredAt: null,
      duration: 0,
      forwardedTo: null,
      fromPhoneNumber: caller,
      toPhoneNumber: ours.phoneNumber,
      billingPhoneNumberId: ours.id,
      callerId: caller,
      providerId: simulated.providerCallId,
      billingStatus: "NotBillable",
      billableAmount: 0,
    });
    const timeline = await timelineOf(org, call.id, "CallMissed");
    expect(timeline).toEqual(expect.arrayContaining(["CallReceived", "CallNoAnswer", "CallMissed"]));
    expect(timeline).not.toContain("CallAnswered");
  });

  it("with a forwarding number that answers, dials it with the configured ring time and the call is answered, not missed", async () => {
    const org = await newOrganization();
    const ours = await addNumber(org);
    const forwardTo = magic("20", "415");
    await forwardCalls(org, forwardTo, 25);
    const caller = randomNumber("312");
    const simulated = await callFrom(caller, ours.phoneNumber);
    expect(simulated.statuses).toEqual([200, 200, 200]);
    const [listed] = await callEventsOf(org, encodeURIComponent(caller));
    expect(simulated.twiml).toContain(`<Number>${forwardTo}</Number></Dial></Response>`);
    expect(simulated.dial).toEqual({
      forwardTo,
      timeoutSeconds: 25,
      // The signed URL also carries the journey's correlation id (core/observability).
      action: expect.stringMatching(
        new RegExp(`/webhooks/simulator/calls/dial\\?callId=${listed.id}&correlationId=[^&]+$`),
      ),
      callerId: caller,
    });
    expect(simulated.dialTwiml).toMatch(/<Response><\/Response>$/);
    const call = await waitForCall(org, listed.id);
    expect(call).toMatchObject({
      status: "Completed",
      providerStatus: "completed",
      missed: false,
      duration: 42,
      forwardedTo: forwardTo,
      answeredAt: expect.any(String),
    });
    expect(Date.parse(call.endedAt) - Date.parse(call.answeredAt)).toBe(42_000);
    const timeline = await timelineOf(org, call.id, "CallCompleted");
    expect(timeline).toEqual(expect.arrayContaining(["CallReceived", "CallAnswered", "CallCompleted"]));
    expect(timeline).not.toContain("CallMissed");
  });

  it.each([
    ["21", "Busy", "busy"],
    ["22", "NoAnswer", "no-answer"],
    ["23", "Failed", "failed"],
  ])(
    "forwarding to a number of scenario %s ends the call %s and missed, with an apology",
    async (scenario, status, providerStatus) => {
      const org = await newOrganization();
      const ours = await addNumber(org);
      await forwardCalls(org, magic(scenario, "646"));
      const caller = randomNumber("312");
      const simulated = await callFrom(caller, ours.phoneNumber);
      expect(simulated.dialTwiml).toContain("<Say>Sorry, nobody could take your call.");
      expect(simulated.dialTwiml).toContain("<Hangup/>");
      const [listed] = await callEventsOf(org, encodeURIComponent(caller));
      const call = await waitForCall(org, listed.id);
      expect(call).toMatchObject({
        status,
        providerStatus,
        missed: true,
        answeredAt: null,
        duration: 0,
        forwardedTo: magic(scenario, "646"),
      });
      expect(await timelineOf(org, call.id, "CallMissed")).toContain("CallMissed");
    },
  );

  it("a caller who hangs up while the forwarded number rings is a missed call", async () => {
    const org = await newOrganization();
    const ours = await addNumber(org);
    await forwardCalls(org, magic("20", "415"));
    const caller = randomNumber("312");
    await callFrom(caller, ours.phoneNumber, { callerHangsUp: true });
    const [listed] = await callEventsOf(org, encodeURIComponent(caller));
    expect(await waitForCall(org, listed.id)).toMatchObject({ status: "Canceled", missed: true, answeredAt: null });
  });

  it("replayed, late or contradicting dial results and callbacks change nothing", async () => {
    const org = await newOrganization();
    const ours = await addNumber(org);
    await forwardCalls(org, magic("21", "415"));
    const caller = randomNumber("312");
    const simulated = await callFrom(caller, ours.phoneNumber);
    const [listed] = await callEventsOf(org, encodeURIComponent(caller));
    const before = await waitForCall(org, listed.id);
    expect(before).toMatchObject({ status: "Busy", missed: true });
    const form = {
      AccountSid: "ACsimulator000000000000000000000000",
      CallSid: simulated.providerCallId,
      CallStatus: "in-progress",
      Direction: "inbound",
      From: caller,
      To: ours.phoneNumber,
    };
    const replayed = await postSigned(simulated.dial!.action, {
      ...form,
      DialCallStatus: "busy",
      DialCallDuration: "0",
    });
    const contradicting = await postSigned(simulated.dial!.action, {
      ...form,
      DialCallStatus: "completed",
      DialCallDuration: "30",
    });
    const again = await callFrom(caller, ours.phoneNumber, { providerCallId: simulated.providerCallId });
    expect([replayed.status, contradicting.status, ...again.statuses].every((status) => status === 200)).toBe(true);
    const calls = await callEventsOf(org, encodeURIComponent(caller));
    expect(calls).toHaveLength(1);
    const after = await waitForCall(org, listed.id);
    expect(after).toEqual(before);
    const missed = (await events(org)).filter(
      (event) => event.relatedEntityId === listed.id && event.eventType === "CallMissed",
    );
    expect(missed).toHaveLength(1);
  });

  it("keeps inbound call forwarding in the messaging settings, validated field by field", async () => {
    const org = await newOrganization();
    const ours = await addNumber(org);
    expect((await org.request("GET", "/messaging/settings")).body.inboundCalls).toEqual({
      forwardTo: null,
      ringSeconds: 20,
    });
    const saved = await org.request("PUT", "/messaging/settings", {
      body: { inboundCalls: { forwardTo: "(415) 555-0120", ringSeconds: 45 } },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.inboundCalls).toEqual({ forwardTo: "+14155550120", ringSeconds: 45 });
    expect((await org.request("GET", "/messaging/settings")).body.inboundCalls).toEqual({
      forwardTo: "+14155550120",
      ringSeconds: 45,
    });
    const invalid = await org.request("PUT", "/messaging/settings", {
      body: { inboundCalls: { forwardTo: "12", ringSeconds: 3, extra: true } },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get("content-type")).toContain("application/problem+json");
    expect(invalid.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      "/inboundCalls/extra",
      "/inboundCalls/forwardTo",
      "/inboundCalls/ringSeconds",
    ]);
    const tooLong = await org.request("PUT", "/messaging/settings", { body: { inboundCalls: { ringSeconds: 61 } } });
    expect(tooLong.body.errors).toEqual([expect.objectContaining({ pointer: "/inboundCalls/ringSeconds" })]);
    const loop = await org.request("PUT", "/messaging/settings", {
      body: { inboundCalls: { forwardTo: ours.phoneNumber } },
    });
    expect(loop.status).toBe(400);
    expect(loop.body.errors).toEqual([expect.objectContaining({ pointer: "/inboundCalls/forwardTo" })]);
    expect((await org.request("GET", "/messaging/settings")).body.inboundCalls).toEqual({
      forwardTo: "+14155550120",
      ringSeconds: 45,
    });
  });

  it("refuses unsigned or wrongly signed call webhooks with 403", async () => {
    const org = await newOrganization();
    for (const [path, form] of [
      ["/webhooks/simulator/calls/status", "CallStatus=completed"],
      ["/webhooks/simulator/calls/dial?callId=x", "DialCallStatus=completed"],
    ]) {
      const unsigned = await org.request("POST", path!, {
        token: null,
        body: `CallSid=CA1&${form}&From=%2B12125550100&To=%2B12125550120`,
        headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": "bad" },
      });
      expect(unsigned.status).toBe(403);
    }
    const inbound = await org.request("POST", "/webhooks/simulator/calls/inbound", {
      token: null,
      body: "CallSid=CA1&CallStatus=ringing",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(inbound.status).toBe(403);
  });
});

describe("calls: refusals", () => {
  it("refuses a suppressed number with a 422 problem", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const to = randomNumber("646");
    expect((await org.request("POST", "/suppressions", { body: { phoneNumber: to } })).status).toBeLessThan(300);
    const refused = await placeCall(org, { to });
    expect(refused.status).toBe(422);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
  });

  it("refuses a call when the organization has no voice-capable number (422)", async () => {
    const org = await newOrganization();
    await addNumber(org, "212", ["sms"]);
    expect((await placeCall(org, { to: magic("20") })).status).toBe(422);
  });

  it("answers 400 with field pointers for invalid bodies", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const both = await placeCall(org, { to: magic("20"), leadId: "x" });
    expect(both.status).toBe(400);
    expect(both.body.errors.map((error: { pointer: string }) => error.pointer)).toContain("/to");
    const bad = await placeCall(org, { to: "12", record: "yes", extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      "/extra",
      "/record",
      "/to",
    ]);
    const unknownSender = await placeCall(org, { to: magic("20"), fromPhoneNumberId: "nope" });
    expect(unknownSender.status).toBe(400);
    expect(unknownSender.body.errors[0].pointer).toBe("/fromPhoneNumberId");
    const unknownLead = await placeCall(org, { leadId: "01J00000000000000000000000" });
    expect(unknownLead.status).toBe(400);
  });

  it("refuses calls with 402 when the wallet is empty or suspended", async () => {
    const org = await newOrganization();
    await addNumber(org);
    await setAvailableBalance(org, "0.5999");
    const refused = await placeCall(org, { to: magic("20") });
    expect(refused.status).toBe(402);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    const Billing = await import("#core/billing/index");
    await setAvailableBalance(org, "10");
    await Billing.setSuspended(org.organizationId, true);
    expect((await placeCall(org, { to: magic("20") })).status).toBe(402);
    await Billing.setSuspended(org.organizationId, false);
    expect((await placeCall(org, { to: magic("20") })).status).toBe(202);
  });

  it("needs calls:place, and never shows another organization's call", async () => {
    const [org, other] = await Promise.all([newOrganization(), newOrganization()]);
    await addNumber(org);
    const accepted = await placeCall(org, { to: magic("20") });
    expect((await other.request("GET", `/calls/${accepted.body.id}`)).status).toBe(404);
    expect((await org.request("GET", "/calls/unknown")).status).toBe(404);
    const keyWithoutCalls = await import("#core/organizations/index").then((Organizations) =>
      Organizations.issueApiKey(org.organizationId, { name: "read only", scopes: ["calls:read"] }),
    );
    expect((await placeCall(org, { to: magic("20") }, keyWithoutCalls.apiKey)).status).toBe(403);
  });
});

describe("calls: 50 concurrent calls on a nearly empty wallet", () => {
  // The calls ring out ("27", 60 s) so none ends and gives its hold back while the others are still being placed:
  // the count of accepted calls then depends only on the balance, not on how fast this machine is.
  it("reserves for exactly as many calls as the available balance covers, never overdrawing", async () => {
    const org = await newOrganization();
    await addNumber(org);
    await setAvailableBalance(org, "3.0000");
    const attempts = await Promise.all(Array.from({ length: 50 }, () => placeCall(org, { to: magic("27") })));
    const accepted = attempts.filter((attempt) => attempt.status === 202);
    expect(accepted).toHaveLength(5);
    expect(attempts.filter((attempt) => attempt.status === 402)).toHaveLength(45);
    const wallet = (await org.request("GET", "/billing/wallet")).body;
    expect(wallet).toMatchObject({ balance: "3.0000", reservedAmount: "3.0000", availableBalance: "0.0000" });
    const ringing = await Promise.all(accepted.map((attempt) => org.request("GET", `/calls/${attempt.body.id}`)));
    expect(ringing.every((call) => call.body.billingStatus === "Reserved")).toBe(true);
  });

  it("settles every accepted call once: each answered call is charged and the ledger adds up to the balance", async () => {
    const org = await newOrganization();
    await addNumber(org);
    await setAvailableBalance(org, "3.0000");
    const attempts = await Promise.all(Array.from({ length: 50 }, () => placeCall(org, { to: magic("20") })));
    const accepted = attempts.filter((attempt) => attempt.status === 202);
    // Answered calls end within a second and return their hold, so a slow machine may accept a few more than 5.
    expect(accepted.length).toBeGreaterThanOrEqual(5);
    expect(attempts.every((attempt) => attempt.status === 202 || attempt.status === 402)).toBe(true);
    await Promise.all(accepted.map((attempt) => waitForCall(org, attempt.body.id)));
    const wallet = (await org.request("GET", "/billing/wallet")).body;
    const charged = Money.toBilling(Money.subtract("3.0000", Money.multiply("0.02", accepted.length)));
    expect(wallet).toMatchObject({ balance: charged, reservedAmount: "0.0000", availableBalance: charged });
    const ledger = await allLedgerEntries(org);
    expect(Money.toBilling(Money.sum(ledger.map((entry) => entry.amount)))).toBe(wallet.balance);
  });
});

describe("endpoint 14: call events by phone number", () => {
  it("pages the calls from or to a number, newest first, for the caller's organization only", async () => {
    const [org, other] = await Promise.all([newOrganization(), newOrganization()]);
    const ours = await addNumber(org);
    await addNumber(other);
    const contact = magic("20", "646");
    const placed = [];
    for (let index = 0; index < 3; index++) placed.push((await placeCall(org, { to: contact })).body.id);
    await placeCall(other, { to: contact });
    const inbound = await callFrom(contact, ours.phoneNumber);
    const first = await org.request("POST", `/events/calls/phone/${encodeURIComponent(contact)}`, {
      body: { pageSize: 2, includeCount: true },
    });
    expect(first.status).toBe(200);
    expect(first.body.pageSize).toBe(2);
    expect(first.body.totalCount).toBe(4);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.continuationToken).toEqual(expect.any(String));
    const all = await callEventsOf(org, encodeURIComponent(contact), 2);
    expect(all).toHaveLength(4);
    expect(all.map((call) => call.id)).toEqual([...all.map((call) => call.id)].sort().reverse());
    expect(all.map((call) => call.id).slice(1)).toEqual([...placed].reverse());
    expect(all[0]).toMatchObject({ providerId: inbound.providerCallId, direction: "Inbound" });
    // The other sorts (in memory within the read budget): missing values first, the id breaking ties.
    for (const field of ["duration", "endedAt"] as const) {
      const sorted = await org.request("POST", `/events/calls/phone/${encodeURIComponent(contact)}`, {
        body: { orderBy: [{ field, direction: "asc" }] },
      });
      const current: { id: string; duration: number | null; endedAt: string | null }[] = sorted.body.items;
      const value = (call: (typeof current)[number]) =>
        field === "duration" ? (call.duration ?? -1) : call.endedAt ? Date.parse(call.endedAt) : -1;
      expect(current.map((call) => call.id)).toEqual(
        [...current].sort((a, b) => value(a) - value(b) || (a.id < b.id ? -1 : 1)).map((call) => call.id),
      );
      expect(new Set(current.map((call) => call.id))).toEqual(new Set(all.map((call) => call.id)));
    }
    for (const call of all) {
      expect(Object.keys(call)).toEqual(
        expect.arrayContaining([
          "id",
          "providerId",
          "leadId",
          "businessId",
          "userId",
          "conversationId",
          "fromPhoneNumberId",
          "billingPhoneNumberId",
          "fromPhoneNumber",
          "toPhoneNumber",
          "callerId",
          "statusReason",
          "direction",
          "providerStatus",
          "billingStatus",
          "recordingUrl",
          "user",
          "business",
          "createdAt",
          "answeredAt",
          "endedAt",
          "duration",
          "billableSeconds",
          "billableAmount",
          "metadata",
        ]),
      );
      expect(call.businessId).toBe(org.organizationId);
    }
    const ourNumber = await callEventsOf(org, ours.phoneNumber.replace("+", "%2B"));
    expect(ourNumber).toHaveLength(4);
    const rawPlus = await callEventsOf(org, contact);
    expect(rawPlus).toHaveLength(4);
    const otherView = await callEventsOf(other, encodeURIComponent(contact));
    expect(otherView).toHaveLength(1);
    expect(otherView[0].businessId).toBe(other.organizationId);
    const inboundOnly = await org.request("POST", `/events/calls/phone/${encodeURIComponent(contact)}`, {
      body: { filters: [{ field: "direction", value: "Inbound" }] },
    });
    expect(inboundOnly.body.items).toHaveLength(1);
  });

  it("answers 400 for a malformed number and an empty list for an unknown one", async () => {
    const org = await newOrganization();
    const malformed = await org.request("POST", "/events/calls/phone/12ab", { body: {} });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors).toEqual([expect.objectContaining({ pointer: "/path/phoneNumber" })]);
    const empty = await org.request("POST", `/events/calls/phone/${encodeURIComponent(randomNumber())}`, { body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ items: [], continuationToken: null });
    expect((await org.request("POST", "/events/calls/phone/%2B12125550100", { body: {}, token: null })).status).toBe(
      401,
    );
  });
});

describe("calls: forwarded inbound calls are billed", () => {
  const walletOf = async (org: TestOrganization) => (await org.request("GET", "/billing/wallet")).body;
  const chargesOf = async (org: TestOrganization, callId: string) =>
    (await allLedgerEntries(org)).filter((entry) => entry.callId === callId);

  it("a forwarded call answered for 42 s is charged one started minute, once, even when the dial result and callbacks are replayed", async () => {
    const org = await newOrganization();
    const ours = await addNumber(org);
    await forwardCalls(org, magic("20", "415"));
    const { prices } = await walletOf(org);
    const expected = await balanceLess(org, prices.callMinute);
    const caller = randomNumber("312");
    const simulated = await callFrom(caller, ours.phoneNumber);
    expect(simulated.twiml).toContain(`timeLimit="${prices.maxCallMinutes * 60}"`);
    const [listed] = await callEventsOf(org, encodeURIComponent(caller));
    const call = await waitForCall(org, listed.id);
    expect(call).toMatchObject({
      status: "Completed",
      missed: false,
      duration: 42,
      billableSeconds: 60,
      billableAmount: Number(prices.callMinute),
      billingStatus: "Charged",
    });
    expect(await walletOf(org)).toMatchObject({
      balance: expected,
      reservedAmount: "0.0000",
      availableBalance: expected,
    });
    const charge = {
      entryType: "Charge",
      amount: Money.toBilling(Money.negate(prices.callMinute)),
      reason: "CallForwarded",
      callId: call.id,
      relatedEntityType: "Call",
      quantity: 60,
    };
    expect(await chargesOf(org, call.id)).toEqual([expect.objectContaining(charge)]);
    const timeline = await eventually(
      () => events(org),
      (all) => all.some((event) => event.relatedEntityId === call.id && event.eventType === "CallCompleted"),
    );
    expect(
      timeline.find((event) => event.relatedEntityId === call.id && event.eventType === "CallCompleted"),
    ).toMatchObject({
      billingStatus: "Charged",
      billableAmount: Number(prices.callMinute),
    });

    const form = {
      AccountSid: "ACsimulator000000000000000000000000",
      CallSid: simulated.providerCallId,
      CallStatus: "in-progress",
      Direction: "inbound",
      From: caller,
      To: ours.phoneNumber,
    };
    const replayed = await postSigned(simulated.dial!.action, {
      ...form,
      DialCallStatus: "completed",
      DialCallDuration: "42",
    });
    const longer = await postSigned(simulated.dial!.action, {
      ...form,
      DialCallStatus: "completed",
      DialCallDuration: "300",
    });
    const again = await callFrom(caller, ours.phoneNumber, { providerCallId: simulated.providerCallId });
    expect([replayed.status, longer.status, ...again.statuses].every((status) => status === 200)).toBe(true);
    expect(await waitForCall(org, call.id)).toEqual(call);
    const wallet = await walletOf(org);
    expect(wallet).toMatchObject({ balance: expected, reservedAmount: "0.0000", availableBalance: expected });
    const ledger = await allLedgerEntries(org);
    expect(ledger.filter((entry) => entry.callId === call.id)).toEqual([expect.objectContaining(charge)]);
    expect(Money.toBilling(Money.sum(ledger.map((entry) => entry.amount)))).toBe(wallet.balance);
    const spent = (report: any) =>
      report.summary?.usageSpend === prices.callMinute && report.summary?.callsReceived === 1;
    // Analytics counts the call off the table's stream (stream poller, then the aggregator): a slower hop than an event.
    expect(await eventually(async () => (await org.request("GET", "/analytics/my")).body, spent, 40_000)).toSatisfy(
      spent,
    );
  });

  it("a forwarded call nobody answers is charged nothing and its hold is released", async () => {
    const org = await newOrganization();
    const ours = await addNumber(org);
    await forwardCalls(org, magic("22", "646"));
    const before = await walletOf(org);
    const caller = randomNumber("312");
    const simulated = await callFrom(caller, ours.phoneNumber);
    expect(simulated.dial).toBeDefined();
    const [listed] = await callEventsOf(org, encodeURIComponent(caller));
    const call = await waitForCall(org, listed.id);
    expect(call).toMatchObject({
      status: "NoAnswer",
      missed: true,
      billableSeconds: 0,
      billableAmount: 0,
      billingStatus: "Released",
    });
    expect(await walletOf(org)).toMatchObject({
      balance: before.balance,
      reservedAmount: "0.0000",
      availableBalance: before.availableBalance,
    });
    expect(await chargesOf(org, call.id)).toEqual([]);
  });

  it.each([
    ["empty", "InsufficientFunds"],
    ["suspended", "WalletSuspended"],
  ])(
    "an inbound call to an organization whose wallet is %s is not forwarded: it is missed, says why, and nothing is charged",
    async (state, billingStatus) => {
      const org = await newOrganization();
      const ours = await addNumber(org);
      await forwardCalls(org, magic("20", "415"));
      await setAvailableBalance(org, state === "empty" ? "0" : "5");
      if (state === "suspended") await Billing.setSuspended(org.organizationId, true);
      expect((await placeCall(org, { to: magic("20") })).status).toBe(402);
      const before = await walletOf(org);
      const caller = randomNumber("312");
      const simulated = await callFrom(caller, ours.phoneNumber);
      expect(simulated.dial).toBeUndefined();
      expect(simulated.twiml).toContain("<Say>Thank you for calling. Nobody can take your call right now");
      const [listed] = await callEventsOf(org, encodeURIComponent(caller));
      const call = await waitForCall(org, listed.id);
      expect(call).toMatchObject({
        status: "NoAnswer",
        missed: true,
        forwardedTo: null,
        billingStatus,
        billableSeconds: 0,
        billableAmount: 0,
      });
      expect(call.statusReason).toMatch(/^Not forwarded: /);
      expect(await walletOf(org)).toMatchObject({
        balance: before.balance,
        reservedAmount: "0.0000",
        availableBalance: before.availableBalance,
      });
      expect(await chargesOf(org, call.id)).toEqual([]);
      const missed = await eventually(
        () => events(org),
        (all) => all.some((event) => event.relatedEntityId === call.id && event.eventType === "CallMissed"),
      );
      expect(
        missed.find((event) => event.relatedEntityId === call.id && event.eventType === "CallNoAnswer"),
      ).toMatchObject({ billingStatus });
    },
  );
});

describe("calls: click-to-call rings the business side, then bridges the lead", () => {
  const walletOf = async (org: TestOrganization) => (await org.request("GET", "/billing/wallet")).body;

  it("connects an answering agent to the lead with our number as caller id, billing the lead leg's talk time once", async () => {
    const org = await newOrganization();
    const ours = await addNumber(org);
    const agent = magic("20", "415");
    const { prices } = await walletOf(org);
    const expected = await balanceLess(org, Money.toBilling(Money.multiply(prices.callMinute, 3)));
    const accepted = await placeCall(org, {
      to: magic("24"),
      connectTo: "(415) 555-0120",
      whisper: "Lead from the spring campaign",
      ringSeconds: 25,
    });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({
      connectTo: agent,
      whisper: "Lead from the spring campaign",
      ringSeconds: 25,
      toPhoneNumber: magic("24"),
      callerId: ours.phoneNumber,
    });
    const call = await waitForCall(org, accepted.body.id);
    // The lead (scenario 24) talks 125 s: 3 started minutes, whatever the agent's own leg lasted.
    expect(call).toMatchObject({
      status: "Completed",
      duration: 125,
      billableSeconds: 180,
      billingStatus: "Charged",
      missed: false,
      statusReason: null,
      providerId: expect.stringMatching(/^CA/),
    });
    expect(Date.parse(call.connectAnsweredAt)).toBeLessThanOrEqual(Date.parse(call.endedAt));
    expect(await walletOf(org)).toMatchObject({
      balance: expected,
      reservedAmount: "0.0000",
      availableBalance: expected,
    });
    const charges = (await allLedgerEntries(org)).filter((entry) => entry.callId === call.id);
    expect(charges).toEqual([expect.objectContaining({ entryType: "Charge", reason: "CallMinutes", quantity: 180 })]);
    const timeline = await eventually(
      () => events(org),
      (all) => all.some((event) => event.relatedEntityId === call.id && event.eventType === "CallCompleted"),
    );
    expect(timeline.filter((event) => event.relatedEntityId === call.id).map((event) => event.eventType)).toEqual(
      expect.arrayContaining(["CallQueued", "CallAnswered", "CallCompleted"]),
    );

    // The agent's leg ending after the Dial changes nothing; a replayed Dial result charges nothing more.
    const dial = `${baseUrl()}/webhooks/simulator/calls/dial?callId=${call.id}`;
    const form = {
      AccountSid: "ACsimulator000000000000000000000000",
      CallSid: call.providerId,
      CallStatus: "in-progress",
      Direction: "outbound-api",
      From: ours.phoneNumber,
      To: agent,
    };
    expect((await postSigned(dial, { ...form, DialCallStatus: "completed", DialCallDuration: "600" })).status).toBe(
      200,
    );
    expect(await waitForCall(org, call.id)).toEqual(call);
    expect((await allLedgerEntries(org)).filter((entry) => entry.callId === call.id)).toHaveLength(1);
  });

  it.each([
    ["21", "Busy", "The line was busy."],
    ["22", "NoAnswer", "Nobody answered."],
  ])(
    "a lead that does not answer (scenario %s) ends the bridged call %s and releases the hold",
    async (scenario, status, reason) => {
      const org = await newOrganization();
      await addNumber(org);
      const before = await walletOf(org);
      const accepted = await placeCall(org, { to: magic(scenario), connectTo: magic("20", "415") });
      const call = await waitForCall(org, accepted.body.id);
      expect(call).toMatchObject({
        status,
        statusReason: reason,
        billingStatus: "Released",
        billableAmount: 0,
        duration: 0,
        answeredAt: null,
        missed: false,
      });
      expect(call.connectAnsweredAt).toEqual(expect.any(String));
      expect(await walletOf(org)).toMatchObject({ balance: before.balance, reservedAmount: "0.0000" });
    },
  );

  it.each([
    ["21", "Busy", "was not reached: The line was busy."],
    ["23", "Failed", "was not reached: The call could not be connected. (31005)"],
  ])(
    "a business side that does not answer (scenario %s) never dials the lead: %s, nothing charged",
    async (scenario, status, reason) => {
      const org = await newOrganization();
      await addNumber(org);
      const agent = magic(scenario, "415");
      const before = await walletOf(org);
      const accepted = await placeCall(org, { to: magic("20"), connectTo: agent });
      const call = await waitForCall(org, accepted.body.id);
      expect(call).toMatchObject({
        status,
        statusReason: `The business side (${agent}) ${reason}`,
        billingStatus: "Released",
        connectAnsweredAt: null,
        answeredAt: null,
      });
      expect(await walletOf(org)).toMatchObject({ balance: before.balance, reservedAmount: "0.0000" });
    },
  );

  it("an agent who hangs up before the Dial result ends the call Canceled; the organization's settings give the default business side", async () => {
    const org = await newOrganization();
    const ours = await addNumber(org);
    // Scenario 28 answers but posts nothing itself: the agent's hang-up below is the only news of the call.
    const agent = magic("28", "646");
    const saved = await org.request("PUT", "/messaging/settings", {
      body: { outboundCalls: { connectTo: agent, whisper: "New lead" } },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.outboundCalls).toEqual({ connectTo: agent, whisper: "New lead" });
    const ringsOut = await placeCall(org, { to: magic("20") });
    expect(ringsOut.body).toMatchObject({ connectTo: agent, whisper: "New lead" });
    const placed = await waitForCall(org, ringsOut.body.id, (call) => call.providerId !== null);
    const form = {
      AccountSid: "ACsimulator000000000000000000000000",
      CallSid: placed.providerId,
      Direction: "outbound-api",
      From: ours.phoneNumber,
      To: agent,
    };
    const status = `${baseUrl()}/webhooks/simulator/calls/status?callId=${placed.id}`;
    expect((await postSigned(status, { ...form, CallStatus: "completed", CallDuration: "9" })).status).toBe(200);
    const call = await waitForCall(org, placed.id);
    expect(call).toMatchObject({
      status: "Canceled",
      statusReason: `The business side (${agent}) hung up before the lead was connected.`,
      billingStatus: "Released",
      duration: 0,
    });

    const own = await placeCall(org, { to: magic("20"), connectTo: ours.phoneNumber });
    expect(own.status).toBe(400);
    expect(own.body.errors).toEqual([expect.objectContaining({ pointer: "/connectTo" })]);
    const invalid = await placeCall(org, { to: magic("20"), connectTo: "12", ringSeconds: 2, whisper: "" });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      "/connectTo",
      "/ringSeconds",
      "/whisper",
    ]);
    const loop = await org.request("PUT", "/messaging/settings", {
      body: { outboundCalls: { connectTo: ours.phoneNumber } },
    });
    expect(loop.status).toBe(400);
  });
});
