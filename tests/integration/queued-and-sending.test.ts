import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import * as Outbound from "#core/messaging/outbound";
import * as Pacing from "#core/messaging/pacing";
import { changeMessage } from "#core/messaging/store";
import { ProviderError } from "#core/providers/port";
import { dieAfterWriting, holdWhen } from "#tests/helpers/crash";
import { addNumber, createLead, events, magic, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";

// A Pending message whose sender is free at once is written Queued and Sending in one transaction (issue 27, h40):
// the same events as before (Queued, then Sending, each at its own time), one write fewer.

/** A message accepted by the stack and left Scheduled for tomorrow, then made due now, for this process to send. */
async function dueOutsideTheStack(org: TestOrganization, to: string) {
  const accepted = await send(org, {
    to,
    body: "hello",
    scheduledFor: new Date(Date.now() + 86_400_000).toISOString(),
  });
  expect(accepted.status).toBe(202);
  await waitForMessage(org, accepted.body.id, (message) => message.status === "Scheduled");
  const due = await changeMessage(org.organizationId, accepted.body.id, {
    from: ["Scheduled"],
    set: { scheduledFor: new Date(Date.now() - 1_000).toISOString(), quietHoursOverridden: true },
  });
  if (!due) throw new Error("the message moved on before the test could make it due");
  return due;
}

/** The message's status events from Queued on, oldest first (its acceptance and the test's scheduling left out). */
async function statusEvents(org: TestOrganization, messageId: string) {
  return (await events(org))
    .filter(
      (event) =>
        event.relatedEntityId === messageId && !["MessageAccepted", "MessageScheduled"].includes(event.eventType),
    )
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}

describe("a message goes Queued and Sending in one write when its number is free", () => {
  applyStackEnv();

  it("killed right after its first status write, it is Sending with both events, each at its own time", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const due = await dueOutsideTheStack(org, magic("00"));
    await dieAfterWriting(["Queued", "Sending"], () => Outbound.process(org.organizationId, due.id));

    const stored = (await org.request("GET", `/messages/${due.id}`)).body;
    expect(stored.status).toBe("Sending");
    expect(stored.queuedAt < stored.sendingStartedAt).toBe(true);
    const recorded = await statusEvents(org, due.id);
    expect(recorded.map((event) => [event.eventType, event.status, event.createdAt])).toEqual([
      ["MessageQueued", "Queued", stored.queuedAt],
      ["MessageSending", "Sending", stored.sendingStartedAt],
    ]);
    // The Queued event is the message as it was when queued: no sender yet.
    expect(recorded[0]).toMatchObject({ queuedAt: stored.queuedAt, fromPhoneNumberId: null, sendingStartedAt: null });
    expect(recorded[1]).toMatchObject({
      fromPhoneNumberId: stored.fromPhoneNumberId,
      sendingStartedAt: stored.sendingStartedAt,
    });
  });

  it("Queued and Sending are dated at their write, after the checks and the hold, not when the send was planned", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const due = await dueOutsideTheStack(org, magic("00"));
    // The hold's write is slow: everything before the status write takes at least that long.
    const held = sleep(300).then(() => Date.now());
    const stop = holdWhen(held, `RESERVATION#${due.id}`);
    try {
      await Outbound.process(org.organizationId, due.id);
    } finally {
      stop();
    }
    const heldUntil = await held;
    const stored = (await org.request("GET", `/messages/${due.id}`)).body;
    expect(Date.parse(stored.queuedAt)).toBeGreaterThanOrEqual(heldUntil);
    expect(Date.parse(stored.sendingStartedAt)).toBe(Date.parse(stored.queuedAt) + 1);
    const recorded = await statusEvents(org, due.id);
    expect(recorded.slice(0, 2).map((event) => [event.eventType, event.createdAt])).toEqual([
      ["MessageQueued", stored.queuedAt],
      ["MessageSending", stored.sendingStartedAt],
    ]);
  });

  it("a message whose number is busy is written Queued first, and waits there for its slot", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    const due = await dueOutsideTheStack(org, magic("00"));
    // The carrier throttled the number: it sends nothing for a minute.
    await Pacing.throttled(
      org.organizationId,
      number.id,
      new ProviderError("transient", "30022", "too fast", { retryAfterSeconds: 60 }),
    );
    await dieAfterWriting(["Queued", "Sending"], () => Outbound.process(org.organizationId, due.id));
    expect((await org.request("GET", `/messages/${due.id}`)).body.status).toBe("Queued");
    expect((await statusEvents(org, due.id)).map((event) => event.eventType)).toEqual(["MessageQueued"]);

    // Restarted: it waits in the queue for its slot, Queued, with no second event.
    await Outbound.process(org.organizationId, due.id);
    const waiting = (await org.request("GET", `/messages/${due.id}`)).body;
    expect(waiting.status).toBe("Queued");
    const [queued, ...more] = await statusEvents(org, due.id);
    expect([queued.eventType, more]).toEqual(["MessageQueued", []]);
    // Its event is dated at the message's `queuedAt` (the write's time), as in the one write with the claim.
    expect(queued.createdAt).toBe(waiting.queuedAt);
  });

  it("through the stack, a text's events are Queued, Sending, Sent and Delivered, in that order, once each", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const sent = await send(org, { to: magic("00"), body: "hello" });
    expect(sent.status).toBe(202);
    const delivered = await waitForMessage(org, sent.body.id, (message) => message.status === "Delivered");
    const recorded = await statusEvents(org, sent.body.id);
    expect(recorded.map((event) => event.eventType)).toEqual([
      "MessageQueued",
      "MessageSending",
      "MessageSent",
      "MessageDelivered",
    ]);
    expect(recorded[0].createdAt).toBe(delivered.queuedAt);
    expect(recorded[1].createdAt).toBe(delivered.sendingStartedAt);
  });

  // Not overridden (the tests above override quiet hours, which hid this): the windows `plan` passed are recorded
  // with the rules `dispatch` passes, whether Queued is written with the claim or first.
  it("a text to a lead records the quiet-hours window it passed with the rules passed at dispatch, sent or blocked", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const frequencyCaps = { smsPerDay: 1, callsPerDay: null };
    const capped = await org.request("PUT", "/consent/settings", {
      body: { trustedForm: null, jornaya: null, frequencyCaps },
    });
    expect(capped.status).toBe(200);
    const lead = await createLead(org, randomNumber(), "NJ");
    const sent = await send(org, { leadId: lead.id, body: "Your quote is ready." });
    expect(sent.status).toBe(202);
    const delivered = await waitForMessage(org, sent.body.id, (message) => message.status === "Delivered");
    expect(delivered.complianceChecks).toEqual(["QuietHours", "OptOut", "Suppression", "FrequencyCap"]);

    // Over the organization's cap (set above): blocked at dispatch, after Queued is written on its own.
    const refused = await send(org, { leadId: lead.id, body: "Your quote is still ready." });
    expect(refused.status).toBe(202);
    const blocked = await waitForMessage(org, refused.body.id, (message) => message.status === "Blocked");
    expect(blocked).toMatchObject({
      complianceAction: "FrequencyCap",
      complianceChecks: ["QuietHours", "OptOut", "Suppression"],
    });

    // The consent record, the compliance evidence, shows the same.
    const record = (await org.request("GET", `/leads/${lead.id}/consent`)).body;
    expect(record.contactAttempts.map((attempt: any) => attempt.complianceChecks)).toEqual([
      delivered.complianceChecks,
      blocked.complianceChecks,
    ]);
  });
});
