/// <reference path="./.sst/platform/config.d.ts" />

/** Stages whose data must survive `sst remove` and accidental deletes. */
const productionStages = ["prod", "production"];

export default $config({
  app(input) {
    const production = productionStages.includes(input?.stage ?? "");
    return {
      name: "lead-messaging-api",
      home: "aws",
      removal: production ? "retain" : "remove",
      protect: production,
      // Pinned to the version the SST platform ships with, so `sst install` resolves no "latest".
      providers: { aws: { version: "6.66.2" } },
    };
  },
  async run() {
    const { table } = await import("./stacks/table.ts");
    const { queues } = await import("./stacks/queues.ts");
    const { api } = await import("./stacks/api.ts");
    await import("./stacks/consumers.ts");
    await import("./stacks/schedules.ts");
    const { web } = await import("./stacks/web.ts");
    const { alarmTopic } = await import("./stacks/alarms.ts");
    const { streamFailures } = await import("./stacks/queues.ts");
    const { auth } = await import("./stacks/auth.ts");

    return {
      apiUrl: api.url,
      identityUrl: auth.url,
      // The operator CLI writes a first owner's password there (npm run admin -- set-password --stage NAME).
      identityTableName: auth.nodes.table.name,
      ...(web ? { webUrl: web.url } : {}),
      tableName: table.name,
      alarmTopicArn: alarmTopic.arn,
      // The operator CLI reads it (npm run admin -- dlq show streamFailures --stage NAME).
      streamFailuresDlqUrl: streamFailures.url,
      ...Object.fromEntries(
        Object.entries(queues).flatMap(([name, { queue, dlq }]) => [
          [`${name}QueueUrl`, queue.url],
          [`${name}DlqUrl`, dlq.url],
        ]),
      ),
    };
  },
});
