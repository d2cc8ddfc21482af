import { describe, expect, it } from "vitest";
import { config } from "#core/config";
import { lambdaContext, loadFunction } from "#local/handlers";
import { applyStackEnv } from "#tests/helpers/stack";

/**
 * The local runner gives each function exactly the queues its stack grants it
 * (`sendsTo` in stacks/definitions.ts): publishing anywhere else fails here as it
 * fails in AWS, where the function has neither the URL variable nor sqs:SendMessage.
 */
describe("queue grants of the running function", () => {
  applyStackEnv();
  const publisher = { handler: "tests/setup/queue-url-handler.handler", sendsTo: ["leadIntake"] as const };

  it("lets a function publish to a queue of its sendsTo", async () => {
    const handler = await loadFunction(publisher);
    await expect(handler({ queue: "leadIntake" }, lambdaContext("publisher", 5_000))).resolves.toMatch(/leadIntake/);
  });

  it("refuses a queue the function is not granted, naming the missing variable and the fix", async () => {
    const handler = await loadFunction(publisher);
    await expect(handler({ queue: "outboundMessages" }, lambdaContext("publisher", 5_000))).rejects.toThrow(
      /Missing environment variable OUTBOUND_QUEUE_URL: this function is not granted the outboundMessages queue/,
    );
  });

  it("refuses every queue to a function that declares none", async () => {
    const handler = await loadFunction({ handler: publisher.handler });
    await expect(handler({ queue: "leadIntake" }, lambdaContext("publisher", 5_000))).rejects.toThrow(
      /not granted the leadIntake queue/,
    );
  });

  it("checks nothing outside a function invocation (tests and the admin CLI talk to core directly)", () => {
    expect(config.queueUrl("outboundMessages")).toMatch(/outboundMessages/);
  });
});
