import { describe, expect, it } from "vitest";
import * as Money from "#core/shared/money";
import { allLedgerEntries } from "#tests/helpers/billing";
import { addNumber, magic, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

describe("phone numbers at the carrier: search, buy, register, release", () => {
  it("searches the carrier's offer by area code, state and capabilities; bad filters are 400s", async () => {
    const org = await newOrganization();
    const found = await org.request(
      "GET",
      "/available-phone-numbers?areaCode=415&region=ca&capabilities=sms,mms&limit=3",
    );
    expect(found.status).toBe(200);
    expect(found.body.items).toHaveLength(3);
    for (const item of found.body.items) {
      expect(item).toEqual({
        phoneNumber: expect.stringMatching(/^\+1415\d{7}$/),
        region: "CA",
        locality: null,
        capabilities: expect.arrayContaining(["sms", "mms"]),
      });
    }
    const bad = await org.request("GET", "/available-phone-numbers?areaCode=12&capabilities=fax&limit=99");
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      "/query/areaCode",
      "/query/capabilities/0",
      "/query/limit",
    ]);
    expect((await org.request("GET", "/available-phone-numbers", { token: null })).status).toBe(401);
  });

  it("buys a number (first month charged), then DELETE releases it: 204, then 404", async () => {
    const org = await newOrganization();
    const [offered] = (await org.request("GET", "/available-phone-numbers?areaCode=646&limit=1")).body.items;
    const bought = await org.request("POST", "/phone-numbers", {
      body: { phoneNumber: offered.phoneNumber, purchase: true, friendlyName: "Sales" },
    });
    expect(bought.status).toBe(201);
    expect(bought.body).toMatchObject({ phoneNumber: offered.phoneNumber, friendlyName: "Sales", areaCode: "646" });
    const fees = (await allLedgerEntries(org)).filter((entry) => entry.reason === "PhoneNumberMonthly");
    expect(fees).toHaveLength(1);
    const other = await newOrganization();
    expect((await other.request("POST", "/phone-numbers", { body: { phoneNumber: offered.phoneNumber } })).status).toBe(
      409,
    );
    expect((await other.request("DELETE", `/phone-numbers/${bought.body.id}`)).status).toBe(404);
    expect((await org.request("DELETE", `/phone-numbers/${bought.body.id}`)).status).toBe(204);
    expect((await org.request("GET", `/phone-numbers/${bought.body.id}`)).status).toBe(404);
    const again = await org.request("DELETE", `/phone-numbers/${bought.body.id}`);
    expect(again.status).toBe(404);
    expect(again.headers.get("content-type")).toMatch(/application\/problem\+json/);
  });

  it("registers only a number the carrier account holds (422 otherwise), and refunds a purchase the carrier refuses (409)", async () => {
    const org = await newOrganization();
    const before = (await org.request("GET", "/billing/wallet")).body;
    // +1 415 555 0198 belongs to another business: the simulated account does not hold it and cannot sell it.
    const someoneElses = magic("98", "415");
    const claimed = await org.request("POST", "/phone-numbers", { body: { phoneNumber: someoneElses } });
    expect(claimed.status).toBe(422);
    expect(claimed.body.detail).toMatch(/not held by this platform's simulator account/);
    const purchase = await org.request("POST", "/phone-numbers", {
      body: { phoneNumber: someoneElses, purchase: true },
    });
    expect(purchase.status).toBe(409);
    expect(purchase.body.detail).toMatch(/21422/);
    const wallet = (await org.request("GET", "/billing/wallet")).body;
    expect(wallet.balance).toBe(before.balance);
    const ledger = await allLedgerEntries(org);
    expect(Money.toBilling(Money.sum(ledger.map((entry) => entry.amount)))).toBe(wallet.balance);
    const listed = await org.request("POST", "/phone-numbers/all/my", { body: {} });
    expect(listed.body.items).toEqual([]);
    // The route was freed: the number is not left claimed by the refused attempt.
    const anotherTry = await org.request("POST", "/phone-numbers", {
      body: { phoneNumber: someoneElses, purchase: true },
    });
    expect(anotherTry.status).toBe(409);
    expect(anotherTry.body.detail).toMatch(/carrier refused/);
  });
});

describe("the organization's provider", () => {
  it("defaults to the deployment's, accepts a configured one, and is what the organization sends through", async () => {
    const org = await newOrganization();
    expect((await org.request("GET", "/messaging/settings")).body.provider).toBeNull();
    // The test stack configures Twilio and Telnyx against local fakes (an unconfigured one: tests/unit/telnyx-adapter.test.ts).
    for (const provider of ["twilio", "telnyx"])
      expect((await org.request("PUT", "/messaging/settings", { body: { provider } })).body.provider).toBe(provider);
    const unknown = await org.request("PUT", "/messaging/settings", { body: { provider: "carrier-pigeon" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([expect.objectContaining({ pointer: "/provider" })]);
    // PUT replaces the settings: keep quiet hours off so the send leaves now.
    const chosen = await org.request("PUT", "/messaging/settings", {
      body: { provider: "simulator", quietHours: { start: "00:00", end: "00:00" } },
    });
    expect(chosen.status).toBe(200);
    expect(chosen.body.provider).toBe("simulator");
    await addNumber(org);
    const delivered = await waitForMessage(
      org,
      (await send(org, { to: randomNumber(), body: "through the chosen carrier" })).body.id,
    );
    expect(delivered).toMatchObject({ status: "Delivered", provider: "simulator" });
  });
});
