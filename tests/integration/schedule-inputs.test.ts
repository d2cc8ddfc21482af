import { describe, expect, it } from "vitest";
import { lambdaContext, loadFunction } from "#local/handlers";
import { scheduleInput } from "#local/scheduler";
import { schedules } from "#stacks/definitions";
import { applyStackEnv } from "#tests/helpers/stack";

/**
 * In AWS a schedule's function receives the target's constant input `{}`, not a scheduled event (tests/deploy
 * asserts it), and EventBridge may run a schedule twice at once (a retry of a run it thinks failed, or the next
 * minute's run beside a slow one). Every schedule handler takes `{}` and two overlapping runs both finish; what they
 * do is claimed item by item with conditional writes, so it happens once (the fee run, the one that moves money, is
 * checked charging once under four overlapping runs in tests/http/billing-number-fees.test.ts).
 */
describe("the schedules' functions as EventBridge invokes them", () => {
  applyStackEnv();

  it.each(schedules.map((schedule) => [schedule.name, schedule] as const))(
    "%s takes `{}` and runs twice at once",
    async (_name, schedule) => {
      const handler = await loadFunction(schedule);
      const runs = await Promise.allSettled(
        [1, 2].map(() => handler({ ...scheduleInput }, lambdaContext(schedule.name, 60_000))),
      );
      expect(runs.map((run) => (run.status === "rejected" ? String(run.reason) : "fulfilled"))).toEqual([
        "fulfilled",
        "fulfilled",
      ]);
    },
  );
});
