import { describe, expect, it } from "vitest";
import {
  addNumber,
  createLead,
  events,
  eventsWhen,
  randomNumber,
  send,
  waitForMessage,
} from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

describe("POST /events/all/my (endpoint 13)", () => {
  it("lists newest first with an empty body, pages with continuation tokens, and narrows by category, type, lead, conversation and time", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const phone = randomNumber();
    const lead = await createLead(org, phone);
    const first = await waitForMessage(org, (await send(org, { leadId: lead.id, body: "one" })).body.id);
    const second = await waitForMessage(org, (await send(org, { to: randomNumber(), body: "two" })).body.id);
    // A message's event is recorded just after its final status: wait for both deliveries' events, so the listings
    // below (compared with each other) see one settled set of events.
    await eventsWhen(org, { eventType: "MessageDelivered" }, (items) => items.length === 2);

    const all = await org.request("POST", "/events/all/my", { body: {} });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ pageSize: 50, totalCount: null });
    const createdAt = all.body.items.map((event: { createdAt: string }) => event.createdAt);
    expect(createdAt).toEqual([...createdAt].sort().reverse());
    expect(all.body.items[0]).toHaveProperty("timelineType");

    const everything = await events(org);
    const paged: string[] = [];
    let token: string | null = null;
    do {
      const page: { body: any } = await org.request("POST", "/events/all/my", {
        body: token ? { pageSize: 3, continuationToken: token } : { pageSize: 3 },
      });
      paged.push(...page.body.items.map((event: { id: string }) => event.id));
      token = page.body.continuationToken;
    } while (token);
    expect(paged).toEqual(everything.map((event) => event.id));

    expect((await events(org, { eventCategory: "Sms" })).every((event) => event.eventCategory === "Sms")).toBe(true);
    expect((await events(org, { eventType: "MessageDelivered" })).map((event) => event.relatedEntityId).sort()).toEqual(
      [first.id, second.id].sort(),
    );
    const byLead = await events(org, { leadId: lead.id, eventCategory: "Sms" });
    expect(byLead.length).toBeGreaterThan(0);
    expect(byLead.every((event) => event.leadId === lead.id)).toBe(true);
    expect(
      (await events(org, { conversationId: second.conversationId })).every(
        (event) => event.conversationId === second.conversationId,
      ),
    ).toBe(true);

    // startAt is inclusive and endAt exclusive, to the millisecond of the second delivery.
    const deliveries = await events(org, { eventType: "MessageDelivered" });
    const boundary = deliveries.find((event) => event.relatedEntityId === second.id).createdAt;
    expect(
      (await events(org, { endAt: boundary, eventType: "MessageDelivered" })).map((event) => event.relatedEntityId),
    ).toEqual([first.id]);
    expect(
      (await events(org, { startAt: boundary, eventType: "MessageDelivered" })).map((event) => event.relatedEntityId),
    ).toEqual([second.id]);
    const empty = await org.request("POST", `/events/all/my?startAt=${boundary}&endAt=${boundary}`, { body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].pointer).toBe("/query/endAt");
  });

  it("answers 400 for malformed parameters, 401 without credentials", async () => {
    const org = await newOrganization();
    const bad = await org.request("POST", "/events/all/my?startAt=yesterday", { body: {} });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].pointer).toBe("/query/startAt");
    expect(
      (await org.request("POST", "/events/all/my", { body: { filters: [{ field: "nope", value: 1 }] } })).status,
    ).toBe(400);
    expect((await org.request("POST", "/events/all/my", { body: {}, token: null })).status).toBe(401);
  });
});
