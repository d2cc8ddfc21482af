import { parseArgs } from "node:util";
import { applyShortWaits } from "#local/short-waits";
import { startLocalStack } from "#local/start";

/**
 * The stack `npm run chaos` kills: `npm start`'s local stack on the harness's
 * own state folder and ports, with DynamoDB Local on disk (`-dbPath` under the
 * state folder) so data survives a SIGKILL; the SQS emulator keeps its queues
 * in memory, so a kill also loses every queued message (the sweeps recover).
 * Prints `READY <baseUrl>` once serving.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      "state-dir": { type: "string" },
      port: { type: "string" },
      "dynamodb-port": { type: "string" },
      "sqs-port": { type: "string" },
    },
  });
  process.env.RATE_LIMIT_REQUESTS = String(1_000_000_000);
  // The tests' short waits, so provider retries finish in seconds of real time and only the hour-long
  // timeouts need the harness to move the sweeps' clock.
  applyShortWaits();
  const stack = await startLocalStack({
    stateDir: values["state-dir"]!,
    port: Number(values.port),
    dynamodbPort: Number(values["dynamodb-port"]),
    sqsPort: Number(values["sqs-port"]),
    inMemory: false,
    provision: false,
  });
  console.log(`READY ${stack.baseUrl}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
