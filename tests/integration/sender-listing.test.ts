// The listings of the numbers are counted (core/observability/call-count.ts): set before the DynamoDB client is made.
process.env.MEASURE_CALLS = "1";

import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { measureScope } from "#core/observability/call-count";
import * as Outbound from "#core/messaging/outbound";
import * as Pacing from "#core/messaging/pacing";
import { BUSY_RELISTING_MS, SENDER_LISTING_MS } from "#core/messaging/phone-numbers";
import { ProviderError } from "#core/providers/port";
import { readMessage } from "#core/messaging/store";
import { addNumber, events, queuedOutsideTheStack, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

afterAll(() => {
  delete process.env.MEASURE_CALLS;
});

/**
 * Sender choice lists the organization's numbers once per `SENDER_LISTING_MS` in a warm instance (issue 27, tenth
 * pass) and reads each listed number's item consistently on every send. This process plays the outbound consumer (the
 * stack's own leaves these messages alone), so its listing is the one the test observes.
 */
describe("the numbers a warm instance listed for sender choice", () => {
  afterEach(() => vi.useRealTimers());

  /** Dispatches a message only this process handles to `to`: the number it went from, and the listings it made. */
  const dispatched = async (org: TestOrganization, to: string) => {
    const queued = await queuedOutsideTheStack(org, to);
    const { measurement } = await measureScope(() => Outbound.dispatch(org.organizationId, queued));
    const message = (await readMessage(org.organizationId, queued.id))!;
    const listings = measurement.calls.filter(
      (call) => call.command === "QueryCommand" && call.target.includes("PHONENUMBERS"),
    ).length;
    return { message, listings };
  };

  it("a number bought after the listing is not picked until the listing expires; then it is", async () => {
    const org = await newOrganization();
    const chicago = await addNumber(org, "312");
    const first = await dispatched(org, randomNumber("212"));
    expect(first.message).toMatchObject({ fromPhoneNumberId: chicago.id, status: "Sending" });
    expect(first.listings).toBe(1);

    const newYork = await addNumber(org, "212");
    // Within the window: the listing kept from the first send, without the number bought since.
    const within = await dispatched(org, randomNumber("212"));
    expect(within.message).toMatchObject({ fromPhoneNumberId: chicago.id, selectionReason: "LeastRecentlyUsed" });
    expect(within.listings).toBe(0);

    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + SENDER_LISTING_MS + 1_000);
    const after = await dispatched(org, randomNumber("212"));
    expect(after.message).toMatchObject({ fromPhoneNumberId: newYork.id, selectionReason: "AreaCodeMatch" });
    expect(after.listings).toBe(1);
  });

  it("while the listed numbers are saturated, they are listed again after a few seconds, at most that often: a number bought for it sends", async () => {
    const org = await newOrganization();
    const chicago = await addNumber(org, "312");
    const beforeFirst = Date.now();
    const first = await dispatched(org, randomNumber("212"));
    const afterFirst = Date.now();
    expect(first.message).toMatchObject({ fromPhoneNumberId: chicago.id, status: "Sending" });
    expect(first.listings).toBe(1);

    // The only listed number is saturated (the carrier asked for two minutes' rest), and a second one is bought.
    const rest = (number: { id: string }) =>
      Pacing.throttled(
        org.organizationId,
        number.id,
        new ProviderError("transient", "429", "Too many requests", { retryAfterSeconds: 120 }),
      );
    await rest(chicago);
    const newYork = await addNumber(org, "212");

    // A second after the listing, however long the steps above took: the kept listing is used, and the send waits.
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(beforeFirst + 1_000);
    const soon = await dispatched(org, randomNumber("212"));
    expect(soon.listings).toBe(0);
    expect(soon.message).toMatchObject({ status: "Queued", fromPhoneNumberId: null });

    // BUSY_RELISTING_MS after it: listed again, and the number bought since sends.
    vi.setSystemTime(afterFirst + BUSY_RELISTING_MS + 1_000);
    const later = await dispatched(org, randomNumber("212"));
    expect(later.listings).toBe(1);
    expect(later.message).toMatchObject({ fromPhoneNumberId: newYork.id, selectionReason: "AreaCodeMatch" });

    // Both saturated now, within BUSY_RELISTING_MS of that listing: not listed again.
    await rest(newYork);
    const again = await dispatched(org, randomNumber("212"));
    expect(again.listings).toBe(0);
    expect(again.message).toMatchObject({ status: "Queued", fromPhoneNumberId: null });
  });

  it("a short wait, or a conversation's own number however busy, is no reason to list the numbers again", async () => {
    const org = await newOrganization();
    const chicago = await addNumber(org, "312");
    const to = randomNumber("212");
    const first = await dispatched(org, to);
    const afterFirst = Date.now();
    expect(first.message).toMatchObject({ fromPhoneNumberId: chicago.id });
    await addNumber(org, "212");

    // Older than BUSY_RELISTING_MS, and the only number busy for 3 s: the send waits for it, nothing is listed.
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(afterFirst + BUSY_RELISTING_MS + 1_000);
    const rest = (seconds: number) =>
      Pacing.throttled(
        org.organizationId,
        chicago.id,
        new ProviderError("transient", "429", "Too many requests", { retryAfterSeconds: seconds }),
        Date.now(),
      );
    await rest(3);
    const shortWait = await dispatched(org, randomNumber("415"));
    expect(shortWait.listings).toBe(0);

    // Busy for two minutes, but the conversation's own number: it keeps it, nothing is listed.
    await rest(120);
    const sticky = await dispatched(org, to);
    expect(sticky.listings).toBe(0);
    expect(sticky.message).toMatchObject({ status: "Queued", fromPhoneNumberId: null });
  });

  it("a listed number deleted since is never picked; a kept listing whose numbers are all gone is listed again, and the send goes out", async () => {
    const org = await newOrganization();
    const newYork = await addNumber(org, "212");
    const chicago = await addNumber(org, "312");
    const first = await dispatched(org, randomNumber("212"));
    expect(first.message).toMatchObject({ fromPhoneNumberId: newYork.id, selectionReason: "AreaCodeMatch" });

    expect((await org.request("DELETE", `/phone-numbers/${newYork.id}`)).status).toBe(204);
    const afterDelete = await dispatched(org, randomNumber("212"));
    expect(afterDelete.message).toMatchObject({ fromPhoneNumberId: chicago.id, status: "Sending" });
    expect(afterDelete.listings).toBe(0);

    // Every number of the kept listing is gone; the one bought since is found by listing again.
    const replacement = await addNumber(org, "415");
    expect((await org.request("DELETE", `/phone-numbers/${chicago.id}`)).status).toBe(204);
    const relisted = await dispatched(org, randomNumber("212"));
    expect(relisted.message).toMatchObject({ fromPhoneNumberId: replacement.id, status: "Sending" });
    expect(relisted.listings).toBe(1);
  });

  it("a conversation sticky to a number bought after the listing keeps that number, and is not said to have moved", async () => {
    const org = await newOrganization();
    await addNumber(org, "312");
    await dispatched(org, randomNumber("415"));
    const newYork = await addNumber(org, "212");
    // The stack's consumer (its own listing) sends the conversation's first message from the number bought since.
    const to = randomNumber("212");
    const opened = await waitForMessage(org, (await send(org, { to, body: "first" })).body.id);
    expect(opened).toMatchObject({ status: "Delivered", fromPhoneNumberId: newYork.id });

    const next = await dispatched(org, to);
    expect(next.listings).toBe(0);
    expect(next.message).toMatchObject({ fromPhoneNumberId: newYork.id, selectionReason: "StickyConversation" });
    expect(await events(org, { eventType: "ConversationSenderMoved" })).toHaveLength(0);
  });
});
