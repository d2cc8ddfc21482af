import { describe, expect, it } from "vitest";
import { Outbound } from "#core/messaging/outbound";
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
    for (const message of sent)
      expect(message).toMatchObject({ status: "Sending", selectionReason: "LeastRecentlyUsed" });
    expect(new Set(sent.map((message) => message!.fromPhoneNumberId)).size).toBe(numbers.length);
  });

  it("a local number taken first is replaced by another local one, not by a number of another area", async () => {
    const org = await newOrganization();
    const local = [await addNumber(org, "212"), await addNumber(org, "212")];
    const elsewhere = await addNumber(org, "415");
    const queued = await Promise.all(local.map(() => queuedOutsideTheStack(org, randomNumber("212"))));

    await Promise.all(queued.map((message) => Outbound.dispatch(org.organizationId, message)));

    const sent = await Promise.all(queued.map((message) => readMessage(org.organizationId, message.id)));
    for (const message of sent) expect(message).toMatchObject({ status: "Sending", selectionReason: "AreaCodeMatch" });
    expect(new Set(sent.map((message) => message!.fromPhoneNumberId))).toEqual(new Set(local.map(({ id }) => id)));
    expect(sent.map((message) => message!.fromPhoneNumberId)).not.toContain(elsewhere.id);
  });
});
