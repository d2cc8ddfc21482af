import { describe, expect, it } from "vitest";
import { adminCli } from "#tests/helpers/admin";
import { allLedgerEntries } from "#tests/helpers/billing";
import { addNumber, randomNumber, send } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

/** Runs `npm run admin -- <args>` as an operator would, against the test stack. */
const admin = adminCli();

describe("admin CLI: billing commands", () => {
  it("billing-adjust credits or takes a signed amount with its reason in the ledger, and refuses to cross the floor", async () => {
    const org = await newOrganization();
    const credit = await admin(
      "billing-adjust",
      "--org",
      org.organizationId,
      "--amount",
      "1.23",
      "--reason",
      "Goodwill for the outage",
    );
    expect(credit.code).toBe(0);
    expect(credit.output.entry).toMatchObject({
      entryType: "Adjustment",
      amount: "1.2300",
      reason: "Adjustment",
      description: "Goodwill for the outage",
      createdBy: "operator",
    });
    expect(credit.output.wallet).toMatchObject({ balance: "6.2300", availableBalance: "6.2300" });
    const debit = await admin(
      "billing-adjust",
      "--org",
      org.organizationId,
      "--amount",
      "-0.23",
      "--reason",
      "Correction",
    );
    expect(debit.output.entry.amount).toBe("-0.2300");
    expect((await org.request("GET", "/billing/wallet")).body.balance).toBe("6.0000");
    expect(await allLedgerEntries(org)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ entryType: "Adjustment", amount: "1.2300", description: "Goodwill for the outage" }),
        expect.objectContaining({ entryType: "Adjustment", amount: "-0.2300", description: "Correction" }),
      ]),
    );

    const belowFloor = await admin(
      "billing-adjust",
      "--org",
      org.organizationId,
      "--amount",
      "-6.0001",
      "--reason",
      "Too much",
    );
    expect(belowFloor.code).toBe(1);
    expect(belowFloor.error.errors).toEqual([{ pointer: "/amount", detail: "At most 6.0000 can be taken." }]);
    const invalid = await admin("billing-adjust", "--org", org.organizationId, "--amount", "1.23456", "--reason", " ");
    expect(invalid.code).toBe(1);
    expect(invalid.error.errors.map((error: any) => error.pointer)).toEqual(["/amount", "/reason"]);
    const unknown = await admin("billing-adjust", "--org", "nope", "--amount", "1", "--reason", "x");
    expect(unknown).toMatchObject({ code: 1, error: { error: "No organization nope" } });
    expect((await org.request("GET", "/billing/wallet")).body.balance).toBe("6.0000");
  });

  it("billing-suspend refuses every send until --off lifts it", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const suspended = await admin("billing-suspend", "--org", org.organizationId, "--reason", "Chargeback");
    expect(suspended.output).toMatchObject({
      organizationId: org.organizationId,
      status: "Suspended",
      suspendedReason: "Chargeback",
    });
    const refused = await send(org, { to: randomNumber(), body: "hi" });
    expect(refused.status).toBe(402);
    const lifted = await admin("billing-suspend", "--org", org.organizationId, "--off");
    expect(lifted.output).toMatchObject({ status: "Active", suspendedAt: null, suspendedReason: null });
    expect((await send(org, { to: randomNumber(), body: "hi" })).status).toBe(202);
  });

  it("billing-prices overrides some prices, shows them without flags and names each invalid one", async () => {
    const org = await newOrganization();
    const set = await admin(
      "billing-prices",
      "--org",
      org.organizationId,
      "--sms-segment",
      "0.008",
      "--call-rounding",
      "PerSecond",
      "--max-call-minutes",
      "10",
    );
    expect(set.output).toMatchObject({
      organizationId: org.organizationId,
      prices: {
        currency: "USD",
        smsSegment: "0.0080",
        mmsMessage: "0.0300",
        callRounding: "PerSecond",
        maxCallMinutes: 10,
      },
    });
    expect((await org.request("GET", "/billing/wallet")).body.prices).toEqual(set.output.prices);
    const shown = await admin("billing-prices", "--org", org.organizationId);
    expect(shown.output.prices).toEqual(set.output.prices);
    const invalid = await admin(
      "billing-prices",
      "--org",
      org.organizationId,
      "--mms-message",
      "-1",
      "--call-rounding",
      "Hourly",
      "--max-call-minutes",
      "2.5",
    );
    expect(invalid.code).toBe(1);
    expect(invalid.error.errors.map((error: any) => error.pointer)).toEqual([
      "/mmsMessage",
      "/callRounding",
      "/maxCallMinutes",
    ]);
    expect((await admin("billing-prices", "--org", org.organizationId)).output.prices).toEqual(set.output.prices);
  });
});
