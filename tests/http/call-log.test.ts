import { describe, expect, it } from "vitest";
import { callEventsOf, callFrom, waitForCall } from "#tests/helpers/calls";
import { addNumber, magic, randomNumber } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

describe("the call log (POST /calls/all/my)", () => {
  // Three calls placed and one taken through the carrier simulator take most of a minute late in a full run.
  it(
    "pages every call of the organization newest first, narrows to missed calls, and never shows another organization's",
    { timeout: 150_000 },
    async () => {
      const [org, other] = await Promise.all([newOrganization(), newOrganization()]);
      const ours = await addNumber(org);
      const theirs = await addNumber(other);
      const placed: string[] = [];
      for (const scenario of ["20", "21"])
        placed.push((await org.request("POST", "/calls", { body: { to: magic(scenario, "646") } })).body.id);
      // Nobody takes calls: an inbound call is missed.
      const caller = randomNumber("312");
      await callFrom(caller, ours.phoneNumber);
      const missed = (await callEventsOf(org, encodeURIComponent(caller)))[0];
      await waitForCall(org, missed.id);
      await callFrom(randomNumber("312"), theirs.phoneNumber);
      await other.request("POST", "/calls", { body: { to: magic("20", "646") } });

      const first = await org.request("POST", "/calls/all/my", { body: { pageSize: 2, includeCount: true } });
      expect(first.status).toBe(200);
      expect(first.body.totalCount).toBe(3);
      expect(first.body.items).toHaveLength(2);
      const second = await org.request("POST", "/calls/all/my", {
        body: { pageSize: 2, continuationToken: first.body.continuationToken },
      });
      const all = [...first.body.items, ...second.body.items];
      expect(second.body.continuationToken).toBeNull();
      expect(all.map((call: any) => call.id)).toEqual([missed.id, ...[...placed].reverse()]);
      expect(all.every((call: any) => call.businessId === org.organizationId)).toBe(true);

      const onlyMissed = await org.request("POST", "/calls/all/my", {
        body: { filters: [{ field: "missed", value: true }] },
      });
      expect(onlyMissed.body.items.map((call: any) => call.id)).toEqual([missed.id]);
      expect(onlyMissed.body.items[0]).toMatchObject({ direction: "Inbound", missed: true, fromPhoneNumber: caller });
      const searched = await org.request("POST", "/calls/all/my", { body: { search: caller.slice(-7) } });
      expect(searched.body.items.map((call: any) => call.id)).toEqual([missed.id]);

      const theirLog = await other.request("POST", "/calls/all/my", { body: {} });
      expect(theirLog.body.items).toHaveLength(2);
      expect(theirLog.body.items.some((call: any) => [missed.id, ...placed].includes(call.id))).toBe(false);
    },
  );

  it("answers 400 naming the field for a filter the log does not have, and 403 without calls:read", async () => {
    const org = await newOrganization();
    const unknown = await org.request("POST", "/calls/all/my", { body: { filters: [{ field: "price", value: 1 }] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].pointer).toMatch(/^\/filters\/0\/field/);
    const key = await org.request("POST", "/api-keys", { body: { name: "intake only", scopes: ["leads:write"] } });
    const refused = await org.request("POST", "/calls/all/my", { body: {}, token: key.body.key });
    expect(refused.status).toBe(403);
  });
});

describe("renaming a phone number (PUT /phone-numbers/{id})", () => {
  it("sets and clears the friendly name, explains a bad body beside the field, and reaches only the organization's numbers", async () => {
    const [org, other] = await Promise.all([newOrganization(), newOrganization()]);
    const number = await addNumber(org);
    const renamed = await org.request("PUT", `/phone-numbers/${number.id}`, {
      body: { friendlyName: "  Sales line " },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: number.id, phoneNumber: number.phoneNumber, friendlyName: "Sales line" });
    expect(renamed.body.modifiedAt).toEqual(expect.any(String));
    expect((await org.request("GET", `/phone-numbers/${number.id}`)).body.friendlyName).toBe("Sales line");
    const cleared = await org.request("PUT", `/phone-numbers/${number.id}`, { body: { friendlyName: "" } });
    expect(cleared.body.friendlyName).toBeNull();

    const tooLong = await org.request("PUT", `/phone-numbers/${number.id}`, {
      body: { friendlyName: "x".repeat(256) },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors[0].pointer).toBe("/friendlyName");
    const extra = await org.request("PUT", `/phone-numbers/${number.id}`, {
      body: { friendlyName: "A", phoneNumber: "+12125550000" },
    });
    expect(extra.status).toBe(400);

    const foreign = await other.request("PUT", `/phone-numbers/${number.id}`, { body: { friendlyName: "Mine now" } });
    expect(foreign.status).toBe(404);
    expect((await org.request("GET", `/phone-numbers/${number.id}`)).body.friendlyName).toBeNull();
  });
});
