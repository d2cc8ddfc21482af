import { billingMonth, fromUnits, toUnits } from "#core/billing/prices";
import * as PhoneNumberFees from "#core/billing/number-fees";
import * as PhoneNumbers from "#core/messaging/phone-numbers";
import * as Organizations from "#core/organizations/index";

export interface NumberFeeRunResult {
  /** The billing month charged (`2026-03`). */
  month: string;
  organizations: number;
  /** Numbers looked at (held at `now`). */
  numbers: number;
  /** Fees charged by this run (the others were paid already). */
  charged: number;
  /** Their sum. */
  amount: string;
}

/** Some organizations could not be charged (the others were): the run fails so EventBridge retries it; repeats are free. */
export class NumberFeeRunError extends AggregateError {
  constructor(
    readonly result: NumberFeeRunResult,
    errors: { organizationId: string; error: unknown }[],
  ) {
    super(
      errors.map(({ error }) => error),
      `Phone number fees of ${result.month} failed for ${errors.length} organization(s): ${errors.map(({ organizationId }) => organizationId).join(", ")}`,
    );
    this.name = "NumberFeeRunError";
  }
}

/** Organizations charged at once; one organization's numbers go one after another (they share its wallet item). */
const PARALLEL_ORGANIZATIONS = 8;

/**
 * The `phoneNumberFees` schedule (EventBridge, daily): charges the billing
 * month of `now` for every phone number each organization holds (added before
 * `now`) that has not paid it yet. Running daily makes up a missed run the next
 * day; the per-number-and-month marker makes every repeat a no-op.
 * `organizationId` restricts the run to one organization (tests that move the clock).
 */
export async function chargePhoneNumberFees(
  options: { now?: Date; organizationId?: string } = {},
): Promise<NumberFeeRunResult> {
  const now = options.now ?? new Date();
  const month = billingMonth(now);
  const organizationIds = options.organizationId
    ? [options.organizationId]
    : (await Organizations.list()).map((organization) => organization.id);
  const result: NumberFeeRunResult = {
    month,
    organizations: organizationIds.length,
    numbers: 0,
    charged: 0,
    amount: "0.0000",
  };
  let chargedUnits = 0;
  const chargeOrganization = async (organizationId: string) => {
    const numbers = (await PhoneNumbers.all(organizationId)).filter(
      (number) => Date.parse(number.createdAt) <= now.getTime(),
    );
    result.numbers += numbers.length;
    for (const number of numbers) {
      const outcome = await PhoneNumberFees.charge(organizationId, number, month);
      if (!outcome.charged) continue;
      result.charged++;
      chargedUnits -= toUnits(outcome.entry?.amount ?? "0");
    }
  };
  const queue = [...organizationIds];
  const failures: { organizationId: string; error: unknown }[] = [];
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL_ORGANIZATIONS, queue.length) }, async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        await chargeOrganization(next).catch((error: unknown) => failures.push({ organizationId: next!, error }));
      }
    }),
  );
  result.amount = fromUnits(chargedUnits);
  if (failures.length) throw new NumberFeeRunError(result, failures);
  return result;
}
