import { describe, expect, it } from "vitest";
import { chargePhoneNumberFees } from "#core/messaging/number-fee-run";
import * as Billing from "#core/billing/index";
import { billingMonth, DEFAULT_PRICES, DEFAULT_TRIAL_CREDIT, phoneNumberFee } from "#core/billing/index";
import * as Money from "#core/shared/money";
import { allLedgerEntries, setAvailableBalance, topUp } from "#tests/helpers/billing";
import { addNumber, randomNumber, send } from "#tests/helpers/messaging";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

/** The first instant of the UTC month `offset` months after now's. */
function monthFromNow(offset: number): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1, 0, 5));
}

const numberFees = async (org: TestOrganization) =>
  (await allLedgerEntries(org)).filter((entry) => entry.reason === "PhoneNumberMonthly");
const wallet = async (org: TestOrganization) => (await org.request("GET", "/billing/wallet")).body;

async function expectBalanceIsLedgerSum(org: TestOrganization) {
  const [current, ledger] = await Promise.all([wallet(org), allLedgerEntries(org)]);
  expect(Money.toBilling(Money.sum(ledger.map((entry) => entry.amount)))).toBe(current.balance);
}

describe("billing: phone number fees", () => {
  it("charges a new number for the rest of its first month, prorated by day, with a ledger entry naming the number", async () => {
    const org = await newOrganization();
    const number = (await org.request("GET", `/phone-numbers/${(await addNumber(org)).id}`)).body;
    const month = billingMonth(new Date(number.createdAt));
    const fee = phoneNumberFee(DEFAULT_PRICES, month, number.createdAt);
    expect(await numberFees(org)).toEqual([
      expect.objectContaining({
        entryType: "Charge",
        reason: "PhoneNumberMonthly",
        amount: Money.toBilling(Money.negate(fee.amount)),
        phoneNumberId: number.id,
        relatedEntityType: "PhoneNumber",
        relatedEntityId: number.id,
        quantity: fee.days,
        description: expect.stringContaining(`${number.phoneNumber}, ${month}`),
        createdBy: org.userIds.owner,
      }),
    ]);
    expect((await wallet(org)).balance).toBe(Money.toBilling(Money.subtract(DEFAULT_TRIAL_CREDIT, fee.amount)));
    // The month it was added is paid: the schedule charges nothing more for it.
    expect(await chargePhoneNumberFees({ now: new Date(), organizationId: org.organizationId })).toMatchObject({
      month,
      numbers: 1,
      charged: 0,
    });
    await expectBalanceIsLedgerSum(org);
  });

  it("the monthly run charges each number the organization still holds once per month, however often it fires", async () => {
    const org = await newOrganization();
    const kept = await addNumber(org);
    const deleted = await addNumber(org, "312");
    expect((await org.request("DELETE", `/phone-numbers/${deleted.id}`)).status).toBe(204);
    const before = await wallet(org);

    const next = monthFromNow(1);
    const runs = await Promise.all(
      Array.from({ length: 4 }, () => chargePhoneNumberFees({ now: next, organizationId: org.organizationId })),
    );
    expect(runs.reduce((sum, run) => sum + run.charged, 0)).toBe(1);
    expect(runs.every((run) => run.month === billingMonth(next) && run.numbers === 1)).toBe(true);
    expect(
      await chargePhoneNumberFees({ now: new Date(next.getTime() + 86_400_000), organizationId: org.organizationId }),
    ).toMatchObject({ charged: 0 });
    const fees = await numberFees(org);
    const renewal = fees.filter((entry) => String(entry.description).includes(billingMonth(next)));
    const fullMonth = phoneNumberFee(DEFAULT_PRICES, billingMonth(next), before.createdAt);
    expect(fullMonth).toMatchObject({ amount: "1.1500", days: fullMonth.daysInMonth });
    expect(renewal).toEqual([
      expect.objectContaining({
        amount: "-1.1500",
        phoneNumberId: kept.id,
        quantity: fullMonth.days,
        createdBy: "system",
      }),
    ]);
    expect(
      fees.some(
        (entry) => entry.phoneNumberId === deleted.id && String(entry.description).includes(billingMonth(next)),
      ),
    ).toBe(false);
    expect((await wallet(org)).balance).toBe(Money.toBilling(Money.subtract(before.balance, "1.15")));

    const monthAfter = await chargePhoneNumberFees({ now: monthFromNow(2), organizationId: org.organizationId });
    expect(monthAfter).toMatchObject({ month: billingMonth(monthFromNow(2)), charged: 1, amount: "1.1500" });
    // A month before the number was added charges nothing.
    expect(await chargePhoneNumberFees({ now: monthFromNow(-1), organizationId: org.organizationId })).toMatchObject({
      numbers: 0,
      charged: 0,
    });
    await expectBalanceIsLedgerSum(org);
  });

  it("a wallet that cannot pay the fee goes into debt: Empty, sends refused (402) until a top-up covers it", async () => {
    const org = await newOrganization();
    await addNumber(org);
    await setAvailableBalance(org, "0.5000");
    expect(await chargePhoneNumberFees({ now: monthFromNow(1), organizationId: org.organizationId })).toMatchObject({
      charged: 1,
    });
    expect(await wallet(org)).toMatchObject({
      balance: "-0.6500",
      availableBalance: "-0.6500",
      reservedAmount: "0.0000",
      status: "Empty",
    });
    expect((await send(org, { to: randomNumber(), body: "hi" })).status).toBe(402);
    expect((await org.request("POST", "/calls", { body: { to: randomNumber() } })).status).toBe(402);
    expect((await topUp(org, "1.00")).status).toBe(201);
    expect(await wallet(org)).toMatchObject({ balance: "0.3500", status: "Low" });
    expect((await send(org, { to: randomNumber(), body: "hi" })).status).toBe(202);
    await expectBalanceIsLedgerSum(org);
  });

  it("a suspended wallet still owes the fee of the numbers it holds", async () => {
    const org = await newOrganization();
    await addNumber(org);
    await Billing.setSuspended(org.organizationId, true, "Chargeback");
    const before = await wallet(org);
    expect(await chargePhoneNumberFees({ now: monthFromNow(1), organizationId: org.organizationId })).toMatchObject({
      charged: 1,
      amount: "1.1500",
    });
    expect(await wallet(org)).toMatchObject({
      status: "Suspended",
      balance: Money.toBilling(Money.subtract(before.balance, "1.15")),
    });
  });

  it("adding a number is refused with 402 when the wallet cannot cover its first month or is suspended; nothing is stored or charged", async () => {
    const org = await newOrganization();
    await setAvailableBalance(org, "0.0001");
    const phoneNumber = randomNumber();
    const refused = await org.request("POST", "/phone-numbers", { body: { phoneNumber } });
    expect(refused.status).toBe(402);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect((await org.request("POST", "/phone-numbers/all/my", { body: {} })).body.items).toEqual([]);
    expect(await numberFees(org)).toEqual([]);
    expect((await wallet(org)).balance).toBe("0.0001");

    await setAvailableBalance(org, "5");
    await Billing.setSuspended(org.organizationId, true);
    expect((await org.request("POST", "/phone-numbers", { body: { phoneNumber } })).status).toBe(402);
    await Billing.setSuspended(org.organizationId, false);
    // The refused number was never claimed: it can be added now.
    const added = await org.request("POST", "/phone-numbers", { body: { phoneNumber } });
    expect(added.status).toBe(201);
    expect(await numberFees(org)).toEqual([expect.objectContaining({ phoneNumberId: added.body.id })]);
    await expectBalanceIsLedgerSum(org);
  });

  it("follows the organization's own monthly price; a free number pays nothing", async () => {
    const org = await newOrganization();
    await Billing.setPrices(org.organizationId, { phoneNumberMonthly: "0" });
    await addNumber(org);
    expect(await chargePhoneNumberFees({ now: monthFromNow(1), organizationId: org.organizationId })).toMatchObject({
      charged: 1,
      amount: "0.0000",
    });
    await Billing.setPrices(org.organizationId, { phoneNumberMonthly: "2.5" });
    expect(await chargePhoneNumberFees({ now: monthFromNow(2), organizationId: org.organizationId })).toMatchObject({
      charged: 1,
      amount: "2.5000",
    });
    expect((await numberFees(org)).map((entry) => entry.amount)).toEqual(["-2.5000"]);
    expect((await wallet(org)).balance).toBe("2.5000");
  });
});
