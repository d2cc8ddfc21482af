import { describe, expect, it, vi } from "vitest";
import { instantOfWallTime, wallTimeAt } from "#core/messaging/quiet-hours";
import { sweepDueMessages } from "#core/messaging/sweeper";
import { buyNumber, onCarrier, telnyxSendsFrom } from "#tests/helpers/carriers";
import { addNumber, events, eventsWhen, magic, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

/** The next instant at least `minAheadMs` away when the wall clock in `timeZone` reads hour:00. */
function nextLocal(hour: number, timeZone: string, minAheadMs = 20 * 60_000): Date {
  const now = Date.now();
  for (let day = 0; day < 3; day++) {
    const wall = wallTimeAt(now + day * 86_400_000, timeZone);
    const at = instantOfWallTime({ ...wall, hour, minute: 0, second: 0 }, timeZone);
    if (at >= now + minAheadMs) return new Date(at);
  }
  throw new Error("unreachable");
}

describe("quiet hours", () => {
  it("moves a send that would arrive at 23:00 for a New York number to 08:00 local, saying why", async () => {
    const org = await newOrganization(undefined, { quietHours: "default" });
    await addNumber(org);
    const lateEvening = nextLocal(23, "America/New_York");
    const accepted = await send(org, {
      to: randomNumber("212"),
      body: "late",
      scheduledFor: lateEvening.toISOString(),
    });
    expect(accepted.status).toBe(202);
    const scheduled = await waitForMessage(org, accepted.body.id, (message) => message.status === "Scheduled");
    const local = wallTimeAt(Date.parse(scheduled.scheduledFor), "America/New_York");
    expect([local.hour, local.minute]).toEqual([8, 0]);
    expect(Date.parse(scheduled.scheduledFor)).toBeGreaterThan(lateEvening.getTime());
    expect(scheduled.scheduledReason).toMatch(/Quiet hours: 23:00 in America\/New_York/);
    const [event] = await eventsWhen(org, { eventType: "MessageScheduled" }, (items) => items.length > 0);
    expect(event).toMatchObject({ scheduledFor: scheduled.scheduledFor, scheduledReason: scheduled.scheduledReason });
  });

  it("uses the organization's window in the recipient's area-code zone (Los Angeles)", async () => {
    const org = await newOrganization();
    await addNumber(org);
    await org.request("PUT", "/messaging/settings", { body: { quietHours: { start: "10:00", end: "18:00" } } });
    const nineAm = nextLocal(9, "America/Los_Angeles");
    const accepted = await send(org, { to: randomNumber("415"), body: "early", scheduledFor: nineAm.toISOString() });
    const scheduled = await waitForMessage(org, accepted.body.id, (message) => message.status === "Scheduled");
    expect(Date.parse(scheduled.scheduledFor) - nineAm.getTime()).toBe(60 * 60_000);
  });

  it("keeps the caller's time when quiet hours are overridden with permission; 403 without it", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const lateEvening = nextLocal(23, "America/New_York");
    const body = {
      to: randomNumber("212"),
      body: "urgent",
      scheduledFor: lateEvening.toISOString(),
      overrideQuietHours: true,
    };
    const denied = await send(org, body, org.memberToken);
    expect(denied.status).toBe(403);
    const accepted = await send(org, body);
    const scheduled = await waitForMessage(org, accepted.body.id, (message) => message.status === "Scheduled");
    expect(scheduled).toMatchObject({
      scheduledFor: lateEvening.toISOString(),
      quietHoursOverridden: true,
      scheduledReason: "RequestedByCaller",
    });
  });
});

describe("quiet hours begin while a send waits for its slot", () => {
  it("a burst's sends still queued when the window closes go at its next start, not during quiet hours; a canceled one gives its hold back", async () => {
    const org = await newOrganization();
    // The window is open now: from an hour ago until two hours from now (New York, the recipients' zone).
    const hour = wallTimeAt(Date.now(), "America/New_York").hour;
    const at = (offset: number) => `${String((hour + offset + 24) % 24).padStart(2, "0")}:00`;
    await onCarrier(org, "telnyx", { quietHours: { start: at(-1), end: at(2) } });
    // One send every 5 s: the burst's later messages wait in the queue for their slots.
    const ours = await buyNumber(org, "212", { messagesPerSecond: 0.2 });
    const carrierSends = () => telnyxSendsFrom(ours.phoneNumber);
    const burst: string[] = [];
    for (let index = 0; index < 4; index++)
      burst.push((await send(org, { to: randomNumber("212"), body: `burst ${index}` })).body.id);
    await vi.waitFor(async () => expect((await carrierSends()).length).toBeGreaterThanOrEqual(1), {
      timeout: 30_000,
      interval: 100,
    });

    // The window now opens two hours from now: quiet hours have begun for every send still waiting.
    await onCarrier(org, "telnyx", { quietHours: { start: at(2), end: at(3) } });
    const quietFrom = Date.now();
    const settled = await Promise.all(
      burst.map((id) =>
        waitForMessage(org, id, (message) => message.status === "Scheduled" || !!message.providerMessageId, 30_000),
      ),
    );
    const deferred = settled.filter((message) => message.status === "Scheduled");
    // The first went before; a send whose hand-over was already booked (it waits in place) may still go.
    expect(deferred.length).toBeGreaterThanOrEqual(2);
    const nextStart = Date.parse(deferred[0].scheduledFor);
    expect(wallTimeAt(nextStart, "America/New_York")).toMatchObject({ hour: (hour + 2) % 24, minute: 0 });
    for (const message of deferred) {
      expect(message).toMatchObject({ scheduledFor: deferred[0].scheduledFor, queuedAt: expect.any(String) });
      expect(message.scheduledReason).toMatch(/^Quiet hours: .* in America\/New_York/);
    }
    // Nothing reached the carrier once quiet hours had begun but a send already in place (its slot within a window
    // and a second); the waiting ones never did.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const sends = await carrierSends();
    expect(sends.filter((request) => request.at > quietFrom + 7_000)).toEqual([]);
    expect(sends).toHaveLength(burst.length - deferred.length);
    // Each deferral is recorded (MessageScheduled after its MessageQueued), saying why.
    const scheduledEvents = await eventsWhen(
      org,
      { eventType: "MessageScheduled" },
      (items) => items.length >= deferred.length,
    );
    expect(scheduledEvents).toHaveLength(deferred.length);
    for (const event of scheduledEvents) {
      expect(event.scheduledFor).toBe(deferred[0].scheduledFor);
      expect(event.scheduledReason).toMatch(/^Quiet hours: .* in America\/New_York/);
    }

    // A deferred send kept the hold it took before it waited; canceled, it gives it back.
    for (const message of deferred) {
      const canceled = await org.request("POST", `/messages/${message.id}/cancel`, { body: {} });
      expect(canceled.status).toBe(200);
      expect(canceled.body).toMatchObject({ status: "Canceled", billingStatus: "Released" });
    }
  }, 120_000);

  it("a conversation's two sends moved to the window's next start together reach the carrier in the order they were accepted", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx");
    const ours = await buyNumber(org, "212", { messagesPerSecond: 0.2 });
    const carrierSends = () => telnyxSendsFrom(ours.phoneNumber);
    // Another recipient's send takes the number's first slot; the conversation's first waits for the next one, and
    // its second behind it.
    const lead = randomNumber("212");
    await send(org, { to: randomNumber("212"), body: "someone else" });
    const first = (await send(org, { to: lead, body: "first" })).body.id;
    const second = (await send(org, { to: lead, body: "second" })).body.id;
    await vi.waitFor(async () => expect((await carrierSends()).length).toBeGreaterThanOrEqual(1), {
      timeout: 30_000,
      interval: 100,
    });
    // Quiet hours until the start of a minute 30 to 90 s away (New York): both wait for it, then come back together.
    const opensAt = Math.ceil((Date.now() + 30_000) / 60_000) * 60_000;
    const opens = wallTimeAt(opensAt, "America/New_York");
    const hhmm = (hour: number, minute: number) =>
      `${String(hour % 24).padStart(2, "0")}:${String(minute).padStart(2, "0")}`;
    await onCarrier(org, "telnyx", {
      quietHours: { start: hhmm(opens.hour, opens.minute), end: hhmm(opens.hour + 3, opens.minute) },
    });
    for (const id of [first, second])
      expect(await waitForMessage(org, id, (message) => message.status === "Scheduled", 30_000)).toMatchObject({
        scheduledFor: new Date(opensAt).toISOString(),
      });

    for (const id of [first, second]) await waitForMessage(org, id, (message) => !!message.providerMessageId, 150_000);
    const toLead = (await carrierSends()).filter((request) => (request.body as { to: string }).to === lead);
    expect(toLead.map((request) => (request.body as { text: string }).text)).toEqual(["first", "second"]);
    expect(toLead[0]!.at).toBeGreaterThanOrEqual(opensAt - 1_000);
  }, 240_000);
});

describe("scheduled sends", () => {
  it("keeps a far-future send in the due index until the sweeper releases it, then delivers it", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const noon = nextLocal(12, "America/New_York", 2 * 60 * 60_000);
    const accepted = await send(org, { to: randomNumber("212"), body: "later", scheduledFor: noon.toISOString() });
    const scheduled = await waitForMessage(org, accepted.body.id, (message) => message.status === "Scheduled");
    expect(scheduled.scheduledFor).toBe(noon.toISOString());

    // Before it is due the sweep leaves it alone; at its time it is queued and sent.
    expect(
      await sweepDueMessages({ now: new Date(noon.getTime() - 60 * 60_000), organizationId: org.organizationId }),
    ).toMatchObject({ released: 0 });
    expect(
      await sweepDueMessages({ now: new Date(noon.getTime() + 1_000), organizationId: org.organizationId }),
    ).toMatchObject({ released: 1 });
    // Held and charged like any send: a scheduled message is held when its time comes, from Scheduled.
    const delivered = await waitForMessage(
      org,
      accepted.body.id,
      (message) => message.status === "Delivered" && message.billingStatus === "Charged",
    );
    expect(delivered.queuedAt).toBeTruthy();
    expect(delivered.billableAmount).toBeGreaterThan(0);
    expect(
      await sweepDueMessages({ now: new Date(noon.getTime() + 2_000), organizationId: org.organizationId }),
    ).toMatchObject({ released: 0 });
  });

  it("sends a near-future send (under 15 minutes) through the queue's delay", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const soon = new Date(Date.now() + 3_000);
    const accepted = await send(org, {
      to: randomNumber("212"),
      body: "soon",
      scheduledFor: soon.toISOString(),
      overrideQuietHours: true,
    });
    const delivered = await waitForMessage(
      org,
      accepted.body.id,
      (message) => message.status === "Delivered" && message.billingStatus === "Charged",
      20_000,
    );
    expect(Date.parse(delivered.queuedAt)).toBeGreaterThanOrEqual(soon.getTime() - 1_000);
    expect(delivered.billableAmount).toBeGreaterThan(0);
  });

  it("cancels a scheduled message (canceledAt, cancelReason); 409 once it was sent", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const accepted = await send(org, {
      to: randomNumber("212"),
      body: "maybe",
      scheduledFor: nextLocal(12, "America/New_York", 2 * 3_600_000).toISOString(),
    });
    await waitForMessage(org, accepted.body.id, (message) => message.status === "Scheduled");
    const canceled = await org.request("POST", `/messages/${accepted.body.id}/cancel`, {
      body: { reason: "Lead called us" },
    });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: "Canceled", cancelReason: "Lead called us" });
    expect(canceled.body.canceledAt).toBeTruthy();
    expect(
      await sweepDueMessages({ now: new Date(Date.now() + 3 * 86_400_000), organizationId: org.organizationId }),
    ).toMatchObject({ released: 0 });
    expect((await org.request("POST", `/messages/${accepted.body.id}/cancel`)).status).toBe(409);

    const sent = await waitForMessage(org, (await send(org, { to: randomNumber("212"), body: "now" })).body.id);
    expect((await org.request("POST", `/messages/${sent.id}/cancel`)).status).toBe(409);
    expect((await org.request("POST", "/messages/01JNOTAMESSAGE0000000000000/cancel")).status).toBe(404);
    expect(await events(org, { eventType: "MessageCanceled" })).toHaveLength(1);
  });

  it("turns a message with no final receipt into Unknown after the receipt timeout", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const accepted = await send(org, { to: magic("08"), body: "no receipt" });
    // The sweep asks the carrier by provider id, stored just after the hand-off (the Sent callback may come first).
    const sent = await waitForMessage(
      org,
      accepted.body.id,
      (message) => message.status === "Sent" && message.providerMessageId !== null,
    );
    expect(
      await sweepDueMessages({ now: new Date(Date.now() + 71 * 3_600_000), organizationId: org.organizationId }),
    ).toMatchObject({ expired: 0 });
    expect(
      await sweepDueMessages({ now: new Date(Date.now() + 73 * 3_600_000), organizationId: org.organizationId }),
    ).toMatchObject({ expired: 1 });
    const unknown = await waitForMessage(org, sent.id, () => true);
    expect(unknown.status).toBe("Unknown");
    expect(unknown.statusReason).toMatch(/No final delivery receipt within 72 hours/);
  });

  it("refuses a scheduledFor in the past or not a date-time with 400 and a field pointer", async () => {
    const org = await newOrganization();
    const past = await send(org, { to: randomNumber(), body: "x", scheduledFor: "2020-01-01T00:00:00Z" });
    expect(past.status).toBe(400);
    expect(past.body.errors[0].pointer).toBe("/scheduledFor");
    const garbage = await send(org, { to: randomNumber(), body: "x", scheduledFor: "tomorrow" });
    expect(garbage.status).toBe(400);
    expect(garbage.body.errors[0].pointer).toBe("/scheduledFor");
  });
});
