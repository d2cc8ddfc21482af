import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CALL_SWEEP_GRACE_MINUTES, RING_TIMEOUT_SECONDS } from "#core/calls/index";
import { CALL_CHECK_IN_MS } from "#core/calls/lifecycle";
import { readCall } from "#core/calls/store";
import { sweepDueCalls } from "#core/calls/sweeper";
import { SIMULATOR_ACCOUNT_SID } from "#core/providers/simulator/adapter";
import { allLedgerEntries, balanceLess } from "#tests/helpers/billing";
import { forwardCalls, postSigned, waitForCall } from "#tests/helpers/calls";
import { addNumber, eventsWhen, magic, randomNumber, sleep } from "#tests/helpers/messaging";
import { baseUrl, newOrganization, type TestOrganization } from "#tests/helpers/stack";

/** The default price list's `maxCallMinutes` (the hold covers it; the Dial's timeLimit is it). */
const MAX_CALL_MINUTES = 30;

/** The call's entry in the due index, as stored (undefined once it is final). */
async function dueAtOf(org: TestOrganization, callId: string): Promise<string | undefined> {
  const stored = await readCall(org.organizationId, callId);
  return (stored?.gsi3sk as string | undefined)?.split("#")[0];
}

const sweep = (org: TestOrganization, at: number) =>
  sweepDueCalls({ now: new Date(at), organizationId: org.organizationId });

async function wallet(org: TestOrganization) {
  return (await org.request("GET", "/billing/wallet")).body;
}

describe("call sweep: calls whose final status never came", () => {
  it("ends an overdue call Failed after its deadline, releases its hold, charges nothing, and acts once", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const before = await wallet(org);
    // RingsOut: the simulator reports it ringing (its no-answer is a minute away): no final status to apply.
    const placed = await org.request("POST", "/calls", { body: { to: magic("27") } });
    expect(placed.status).toBe(202);
    const ringing = await waitForCall(org, placed.body.id, (call) => call.status === "Ringing" && call.providerId);
    expect((await wallet(org)).reservedAmount).toBe("0.6000");

    // Due first for a check-in (a few minutes after placing), final by its deadline.
    const deadline =
      Date.parse(ringing.createdAt) +
      (RING_TIMEOUT_SECONDS + (MAX_CALL_MINUTES + CALL_SWEEP_GRACE_MINUTES) * 60) * 1000;
    expect(await dueAtOf(org, ringing.id)).toBe(
      new Date(Date.parse(ringing.createdAt) + CALL_CHECK_IN_MS).toISOString(),
    );

    // Before the deadline the sweep only checks in: the call goes on, due again at its deadline.
    expect(await sweep(org, deadline - 1_000)).toEqual({ reported: 0, expired: 0, checked: 1, errors: 0 });
    expect((await waitForCall(org, ringing.id, () => true)).status).toBe("Ringing");
    expect(await dueAtOf(org, ringing.id)).toBe(new Date(deadline).toISOString());

    expect(await sweep(org, deadline + 1_000)).toEqual({ reported: 0, expired: 1, checked: 0, errors: 0 });
    const ended = await waitForCall(org, ringing.id);
    expect(ended).toMatchObject({
      status: "Failed",
      statusReason: "No final status from the provider within 46 minutes.",
      billingStatus: "Released",
      billableAmount: 0,
      billableSeconds: 0,
      missed: false,
    });
    expect(ended.endedAt).toBeTruthy();
    expect(await wallet(org)).toMatchObject({
      balance: before.balance,
      reservedAmount: "0.0000",
      availableBalance: before.balance,
    });
    expect(
      (await allLedgerEntries(org)).filter((entry) => entry.callId === ringing.id && entry.entryType === "Charge"),
    ).toEqual([]);
    const failed = await eventsWhen(org, { eventType: "CallFailed" }, (items) =>
      items.some((event) => event.relatedEntityId === ringing.id),
    );
    expect(failed.filter((event) => event.relatedEntityId === ringing.id)).toHaveLength(1);
    expect(await dueAtOf(org, ringing.id)).toBeUndefined();

    // A second sweep (or an overlapping one) changes nothing.
    expect(await sweep(org, deadline + 60_000)).toEqual({ reported: 0, expired: 0, checked: 0, errors: 0 });
    expect(await waitForCall(org, ringing.id)).toEqual(ended);
  });

  it("applies the final status the provider reports when asked: a completed call is charged exactly once", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const expected = await balanceLess(org, "0.02");
    // Silent: answered and completed (42 s) at the simulated carrier, but no callback is ever posted.
    const placed = await org.request("POST", "/calls", { body: { to: magic("28") } });
    const dispatched = await waitForCall(org, placed.body.id, (call) => Boolean(call.providerId));
    expect(dispatched.status).toBe("Queued");
    await sleep(1_000); // the simulated call ends within a second of being placed
    const deadline = Date.parse((await dueAtOf(org, dispatched.id))!);

    const [first, overlapping] = await Promise.all([sweep(org, deadline + 1_000), sweep(org, deadline + 1_000)]);
    expect(first.reported + overlapping.reported).toBe(1);
    expect(first.expired + overlapping.expired).toBe(0);
    const call = await waitForCall(org, dispatched.id);
    expect(call).toMatchObject({
      status: "Completed",
      providerStatus: "completed",
      duration: 42,
      billableSeconds: 60,
      billableAmount: 0.02,
      billingStatus: "Charged",
    });
    expect(await sweep(org, deadline + 60_000)).toEqual({ reported: 0, expired: 0, checked: 0, errors: 0 });
    expect(await wallet(org)).toMatchObject({ balance: expected, reservedAmount: "0.0000" });
    const charges = (await allLedgerEntries(org)).filter(
      (entry) => entry.callId === call.id && entry.entryType === "Charge",
    );
    expect(charges).toEqual([expect.objectContaining({ amount: "-0.0200", reason: "CallMinutes", quantity: 60 })]);
  });

  it("leaves a call that ended normally alone: its due entry went with its final status", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const placed = await org.request("POST", "/calls", { body: { to: magic("20") } });
    const call = await waitForCall(org, placed.body.id);
    expect(call).toMatchObject({ status: "Completed", billingStatus: "Charged" });
    expect(await dueAtOf(org, call.id)).toBeUndefined();
    expect(await sweep(org, Date.now() + 24 * 3_600_000)).toEqual({ reported: 0, expired: 0, checked: 0, errors: 0 });
    expect(await waitForCall(org, call.id)).toEqual(call);
  });

  it("ends a forwarded inbound call whose Dial result never came: missed, hold released", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    await forwardCalls(org, randomNumber("646"), 25);
    const before = await wallet(org);
    const from = randomNumber("917");
    // Only the inbound-call webhook arrives: the Dial result and the end of the caller's leg are lost.
    const answer = await postSigned(`${baseUrl()}/webhooks/simulator/calls/inbound`, {
      AccountSid: SIMULATOR_ACCOUNT_SID,
      CallSid: `CA${randomBytes(16).toString("hex")}`,
      CallStatus: "ringing",
      Direction: "inbound",
      From: from,
      To: number.phoneNumber,
    });
    expect(answer.text).toContain("<Dial");
    const callId = new URL(/action="([^"]+)"/.exec(answer.text)![1]!.replace(/&amp;/g, "&")).searchParams.get(
      "callId",
    )!;
    const ringing = await waitForCall(org, callId, () => true);
    expect(ringing).toMatchObject({ status: "Ringing", direction: "Inbound", billingStatus: "Reserved" });
    expect((await wallet(org)).reservedAmount).toBe("0.6000");
    const deadline = Date.parse((await dueAtOf(org, callId))!);
    expect(deadline - Date.parse(ringing.createdAt)).toBeGreaterThanOrEqual(
      (25 + (MAX_CALL_MINUTES + CALL_SWEEP_GRACE_MINUTES) * 60) * 1000,
    );

    expect(await sweep(org, deadline - 1_000)).toMatchObject({ expired: 0 });
    expect(await sweep(org, deadline + 1_000)).toEqual({ reported: 0, expired: 1, checked: 0, errors: 0 });
    expect(await waitForCall(org, callId)).toMatchObject({
      status: "Failed",
      missed: true,
      billingStatus: "Released",
      statusReason: expect.stringMatching(/^No final status from the provider within \d+ minutes\.$/),
    });
    expect(await wallet(org)).toMatchObject({ balance: before.balance, reservedAmount: "0.0000" });
  });
});

describe("call sweep: bridged click-to-call", () => {
  it("waits for both legs' ring time, then applies the business leg's status as the bridge reads it: no Dial result means the lead was never connected, nothing charged", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const before = await wallet(org);
    // The agent's line (28) answers and completes at the carrier but posts nothing: only the sweep's lookup tells.
    const agent = magic("28", "415");
    const placed = await org.request("POST", "/calls", {
      body: { to: magic("20"), connectTo: agent, ringSeconds: 40 },
    });
    expect(placed.status).toBe(202);
    const call = await waitForCall(org, placed.body.id, (current) => current.providerId !== null);
    // Business side rings 30 s, the whisper gets 60 s, the lead rings 40 s, then the longest talk and the grace.
    const deadline =
      Date.parse(call.createdAt) +
      (RING_TIMEOUT_SECONDS + 60 + 40 + (MAX_CALL_MINUTES + CALL_SWEEP_GRACE_MINUTES) * 60) * 1000;
    expect(await dueAtOf(org, call.id)).toBe(new Date(Date.parse(call.createdAt) + CALL_CHECK_IN_MS).toISOString());
    // A check-in asks the provider: the agent's leg may already have ended (then it is applied there), else at the deadline.
    const early = await sweep(org, deadline - 1_000);
    await sleep(1_000); // the agent's simulated leg ends within a second of being placed
    const late = await sweep(org, deadline + 1_000);
    expect([early.reported + late.reported, early.expired + late.expired]).toEqual([1, 0]);
    const ended = await waitForCall(org, call.id);
    expect(ended).toMatchObject({
      status: "Canceled",
      statusReason: `The business side (${agent}) hung up before the lead was connected.`,
      billingStatus: "Released",
      billableAmount: 0,
      duration: 0,
    });
    expect(await wallet(org)).toMatchObject({ balance: before.balance, reservedAmount: "0.0000" });
    expect(await sweep(org, deadline + 60_000)).toEqual({ reported: 0, expired: 0, checked: 0, errors: 0 });
  });
});
