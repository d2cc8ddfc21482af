import { describe, expect, it } from "vitest";
import * as Outbound from "#core/messaging/outbound";
import { readMessage } from "#core/messaging/store";
import { addNumber, queuedOutsideTheStack, randomNumber } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

/**
 * Sends dispatched at the same moment read the same numbers as free and choose the same one. One that finds its
 * choice taken goes out through another number that was free, of the same kind, rather than waiting behind the first
 * (core/messaging/outbound.ts, `bookFree`). This process plays the outbound consumer: the messages are queued where
 * the stack's own consumer leaves them alone.
 */
describe("a burst of sends across free numbers", () => {
  it("as many sends as free numbers, dispatched together, each go out at once through a number of their own", async () => {
    const org = await newOrganization();
    const numbers = [];
    for (let index = 0; index < 4; index++) numbers.push(await addNumber(org, "312"));
    const queued = await Promise.all(numbers.map(() => queuedOutsideTheStack(org, randomNumber("212"))));

    await Promise.all(queued.map((message) => Outbound.dispatch(org.organizationId, message)));

    const sent = await Promise.all(queued.map((message) => readMessage(org.organizationId, message.id)));
    // Handed to the carrier (the simulator's receipts may already have moved it on), none waiting in the queue.
    for (const message of sent) {
      expect(["Sending", "Sent", "Delivered"]).toContain(message!.status);
      expect(message!.selectionReason).toBe("LeastRecentlyUsed");
    }
    expect(new Set(sent.map((message) => message!.fromPhoneNumberId)).size).toBe(numbers.length);
  });

  it("a local choice taken first is replaced only by another local number: with none, the send waits its turn on it", async () => {
    const org = await newOrganization();
    const local = await addNumber(org, "212");
    await addNumber(org, "415"); // free, and of another area
    const queued = await Promise.all([0, 1].map(() => queuedOutsideTheStack(org, randomNumber("212"))));

    await Promise.all(queued.map((message) => Outbound.dispatch(org.organizationId, message)));

    const sent = await Promise.all(queued.map((message) => readMessage(org.organizationId, message.id)));
    // One goes through the local number; the other waits its turn there (in place, or back in the queue on a slow
    // machine, with no sender yet): the free 415 number is not taken.
    expect(sent[0]!.fromPhoneNumberId === local.id || sent[1]!.fromPhoneNumberId === local.id).toBe(true);
    for (const message of sent) expect([local.id, null]).toContain(message!.fromPhoneNumberId);
  });
});
