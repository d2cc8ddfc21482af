import { describe, expect, it } from "vitest";
import * as Organizations from "#core/organizations/index";
import * as Money from "#core/shared/money";
import { allLedgerEntries, ledgerChargesIn } from "#tests/helpers/billing";
import { waitForCall } from "#tests/helpers/calls";
import { addNumber, magic, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

/** Final and billed: the settlement follows the final status by a moment. */
const settled = (message: any) =>
  ["Delivered", "Undelivered", "Failed", "Blocked", "Canceled"].includes(message.status) &&
  message.billingStatus !== "Reserved";

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayMs = 24 * 60 * 60 * 1000;

const usage = (org: TestOrganization, query = "", token?: string) =>
  org.request("GET", `/billing/usage${query}`, token ? { token } : {});

describe("billing usage by kind (GET /billing/usage)", () => {
  it("counts texts, a picture message, a call and a phone number under their kinds, and the total is the ledger's charges of the period", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const sends = await Promise.all([
      ...Array.from({ length: 3 }, (_, index) => send(org, { to: randomNumber(), body: `Hello ${index}` })),
      send(org, { to: randomNumber(), body: "x".repeat(200) }),
      send(org, {
        to: randomNumber(),
        body: "photo",
        media: [{ url: "https://example.com/a.jpg", contentType: "image/jpeg" }],
      }),
      // Refused by the carrier: its hold is released, nothing is charged or counted.
      send(org, { to: magic("01"), body: "never charged" }),
    ]);
    expect(sends.map((sent) => sent.status)).toEqual(sends.map(() => 202));
    const placed = await org.request("POST", "/calls", { body: { to: magic("20") } });
    expect(placed.status).toBe(202);
    // One poller at a time: polling every message at once would run into the organization's rate limit.
    const messages = [];
    for (const sent of sends) messages.push(await waitForMessage(org, sent.body.id, settled));
    expect(messages.filter((message) => message.billingStatus === "Charged")).toHaveLength(5);
    const call = await waitForCall(org, placed.body.id, (current) => current.billingStatus === "Charged");
    expect(call).toMatchObject({ status: "Completed", billableSeconds: 60 });

    // Yesterday to tomorrow: the charges are in it even when the test runs across midnight.
    const from = dayOf(Date.now() - dayMs);
    const to = dayOf(Date.now() + dayMs);
    const answer = await usage(org, `?from=${from}&to=${to}`);
    expect(answer.status).toBe(200);
    const fee = (await allLedgerEntries(org)).find((entry) => entry.reason === "PhoneNumberMonthly")!;
    expect(answer.body).toMatchObject({
      from,
      to,
      startAt: `${from}T00:00:00.000Z`,
      endAt: `${dayOf(Date.now() + 2 * dayMs)}T00:00:00.000Z`,
      currency: "USD",
    });
    expect(answer.body.kinds).toEqual([
      { kind: "SmsSegments", count: 4, quantity: 5, unit: "segments", amount: "0.0500" },
      { kind: "MmsMessage", count: 1, quantity: 1, unit: "messages", amount: "0.0300" },
      { kind: "CallMinutes", count: 1, quantity: 60, unit: "seconds", amount: "0.0200" },
      { kind: "CallForwarded", count: 0, quantity: 0, unit: "seconds", amount: "0.0000" },
      {
        kind: "PhoneNumberMonthly",
        count: 1,
        quantity: fee.quantity,
        unit: "days",
        amount: Money.toBilling(Money.negate(fee.amount)),
      },
    ]);
    const ledger = await ledgerChargesIn(org, answer.body);
    expect(ledger.count).toBe(7);
    expect(answer.body.total).toEqual({ count: ledger.count, amount: ledger.amount });

    // The default period is the current UTC month, and it adds up to the ledger the same way.
    const month = await usage(org);
    expect(month.status).toBe(200);
    const now = new Date();
    expect(month.body.from).toBe(dayOf(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)));
    expect(month.body.to).toBe(dayOf(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)));
    const monthLedger = await ledgerChargesIn(org, month.body);
    expect(month.body.total).toEqual({ count: monthLedger.count, amount: monthLedger.amount });

    // A period before the organization existed has no usage.
    const before = await usage(org, "?from=2020-01-01&to=2020-12-31");
    expect(before.body.total).toEqual({ count: 0, amount: "0.0000" });
    expect(before.body.kinds.every((kind: { count: number }) => kind.count === 0)).toBe(true);
  });

  it("refuses a bad period with a 400 problem naming the parameter", async () => {
    const org = await newOrganization();
    const refused: [string, string][] = [
      ["?from=2026-02-30", "/query/from"],
      ["?from=yesterday", "/query/from"],
      ["?to=2026-13-01", "/query/to"],
      ["?from=2026-03-01T00:00:00Z", "/query/from"],
      ["?from=2026-03-02&to=2026-03-01", "/query/to"],
      ["?from=2024-01-01&to=2025-01-01", "/query/to"],
    ];
    for (const [query, pointer] of refused) {
      const answer = await usage(org, query);
      expect(answer.status, query).toBe(400);
      expect(answer.headers.get("content-type")).toContain("application/problem+json");
      expect(
        answer.body.errors.map((error: { pointer: string }) => error.pointer),
        query,
      ).toEqual([pointer]);
    }
    // A leap year's 366 days, and one bound alone (its month supplies the other), are fine.
    const leapYear = await usage(org, "?from=2024-01-01&to=2024-12-31");
    expect(leapYear.status).toBe(200);
    expect((await usage(org, "?from=2026-02-10")).body).toMatchObject({ from: "2026-02-10", to: "2026-02-28" });
    expect((await usage(org, "?to=2026-02-10")).body).toMatchObject({ from: "2026-02-01", to: "2026-02-10" });
  });

  it("is billing:read: every role reads it, a key without billing:read gets 403, no credential 401, and no organization sees another's", async () => {
    const org = await newOrganization();
    await addNumber(org);
    // Days around now, not the default month: the fee may fall on a month's last second and the reads on the next.
    const aroundNow = `?from=${dayOf(Date.now() - dayMs)}&to=${dayOf(Date.now() + dayMs)}`;
    for (const token of [org.ownerToken, org.adminToken, org.agentToken]) {
      const answer = await usage(org, aroundNow, token);
      expect(answer.status).toBe(200);
      expect(answer.body.total.count).toBe(1);
    }
    const { apiKey } = await Organizations.issueApiKey(org.organizationId, {
      name: "Leads only",
      scopes: ["leads:read"],
    });
    const refused = await usage(org, "", apiKey);
    expect(refused.status).toBe(403);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect((await org.request("GET", "/billing/usage", { token: null })).status).toBe(401);
    const other = await newOrganization();
    expect((await usage(other)).body.total).toEqual({ count: 0, amount: "0.0000" });
  });
});
