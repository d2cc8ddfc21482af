import { existsSync, readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import * as definitions from "#stacks/definitions";
import { consumers, fallbackRoute, queues, routes, schedules, streamConsumers, table } from "#stacks/definitions";

/**
 * Runs the SST stacks against a recording stand-in for SST's globals (no AWS,
 * no Pulumi engine) to check what they would deploy is what the manifest says.
 * `tsc -p stacks/tsconfig.json` checks the same files against SST's real types.
 */

interface Recorded {
  kind: string;
  name: string;
  args: any;
  calls: { method: string; args: any[] }[];
}

const recorded: Recorded[] = [];
const of = (kind: string) => recorded.filter((item) => item.kind === kind);

function component(kind: string, extra: (name: string, args: any, self: Recorded) => object = () => ({})) {
  return class {
    constructor(name: string, args: any = {}) {
      const self: Recorded = { kind, name, args, calls: [] };
      recorded.push(self);
      Object.assign(
        this,
        { name: `${name}-name`, arn: `arn:${name}`, url: `https://${name}` },
        extra(name, args, self),
      );
    }
  };
}

const carrierSecrets: Record<string, string> = { TwilioAccountSid: "ACstage", TwilioAuthToken: "stage-token" };

function installSstStandIn() {
  const resolvedOutput = (value: unknown) => ({ apply: (fn: (v: any) => unknown) => fn(value) });
  Object.assign(globalThis, {
    $app: { name: "lead-messaging-api", stage: "test", removal: "remove" },
    $interpolate: (strings: TemplateStringsArray, ...values: unknown[]) =>
      strings.reduce((text, part, i) => text + part + (i < values.length ? String(values[i]) : ""), ""),
    $output: resolvedOutput,
    sst: {
      // A secret nobody set has its placeholder's value; this stage has carrier credentials.
      Secret: component("Secret", (name, placeholder) => ({
        value: carrierSecrets[name] ?? (typeof placeholder === "string" ? placeholder : `secret:${name}`),
      })),
      Linkable: component("Linkable"),
      aws: {
        permission: (input: unknown) => input,
        Dynamo: component("Dynamo", (_name, _args, self) => ({
          subscribe: (name: string, fn: any, args: any) => {
            self.calls.push({ method: "subscribe", args: [name, fn, args] });
            return { nodes: { function: { name: `${fn.handler}-function` } } };
          },
        })),
        Queue: component("Queue", (name, _args, self) => ({
          nodes: { queue: { name: `${name}-queue` } },
          subscribe: (fn: any, args: any) => {
            self.calls.push({ method: "subscribe", args: [fn, args] });
            return { nodes: { function: { name: `${fn.handler}-function` } } };
          },
        })),
        SnsTopic: component("SnsTopic"),
        Auth: component("Auth"),
        ApiGatewayV2: component("ApiGatewayV2", (name, args, self) => ({
          nodes: { api: { id: `${name}-id` } },
          // Like SST: every route's handler args go through transform.route.handler.
          route: (key: string, handler: any) => {
            args.transform?.route?.handler?.(handler);
            self.calls.push({ method: "route", args: [key, handler] });
          },
        })),
        Cron: component("Cron", (name, args) => ({
          nodes: { function: { name: `${args.function.handler}-function` }, rule: { name: `${name}-rule` } },
        })),
      },
    },
    $dev: false,
    aws: {
      iam: {
        assumeRolePolicyForPrincipal: (principal: object) => ({
          Version: "2012-10-17",
          Statement: [{ Effect: "Allow", Principal: principal, Action: "sts:AssumeRole" }],
        }),
      },
      sns: { TopicSubscription: component("TopicSubscription") },
      cloudwatch: { MetricAlarm: component("MetricAlarm") },
    },
  });
}

/** A variable path, so the project's tsc (which has no SST globals) does not follow into stacks/. */
const load = (module: string) => import(/* @vite-ignore */ `../../stacks/${module}`);

let stacks: Record<"functions" | "consumers" | "schedules" | "alarms", any>;

/** The deploying shell: one operator setting, and a managed variable that must not leak in. */
const shell = { RATE_LIMIT_REQUESTS: "600", TABLE_NAME: "from-the-shell", ALARM_EMAIL: "ops@example.com" };

beforeAll(async () => {
  installSstStandIn();
  const saved = Object.fromEntries(Object.keys(shell).map((name) => [name, process.env[name]]));
  Object.assign(process.env, shell);
  for (const module of ["secrets.ts", "table.ts", "queues.ts", "api.ts"]) await load(module);
  stacks = {
    consumers: await load("consumers.ts"),
    schedules: await load("schedules.ts"),
    functions: await load("functions.ts"),
    alarms: await load("alarms.ts"),
  };
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** Functions handed to SST so far: route handlers, queue subscribers, cron targets. */
const deployedFunctions = () => [
  ...apiRoutes().map((call) => call.args[1]),
  ...of("Queue").flatMap((queue) => queue.calls.map((call) => call.args[0])),
  ...of("Dynamo").flatMap((dynamo) => dynamo.calls.map((call) => call.args[1])),
  ...of("Cron").map((cron) => cron.args.function),
];

describe("route groups", () => {
  it("give each operation to one group, and the route table holds every group's routes", () => {
    // The table spreads the groups: an operationId in two groups would be overridden silently, not refused.
    const groups = Object.entries(definitions).filter(([name]) => name.endsWith("Routes") && name !== "routes");
    const grouped = groups.flatMap(([, group]) => Object.keys(group as object));
    expect(groups.length).toBeGreaterThan(20);
    expect(new Set(grouped).size).toBe(grouped.length);
    expect(Object.keys(definitions.routeTable).sort()).toEqual([...grouped].sort());
  });
});

describe("identity provider", () => {
  it("declares the OpenAuth issuer (sst.aws.Auth) with its handler, SES and a read of the users' table", () => {
    const [identity] = of("Auth");
    expect(identity!.name).toBe("Identity");
    expect(existsSync(handlerFile(identity!.args.issuer.handler))).toBe(true);
    expect(identity!.args.issuer).toMatchObject({ runtime: "nodejs22.x", architecture: "arm64" });
    expect(identity!.args.issuer.environment.TABLE_NAME).toBe(`${table.name}-name`);
    const actions = identity!.args.issuer.permissions.flatMap((permission: any) => permission.actions);
    expect(actions).toEqual(expect.arrayContaining(["ses:SendEmail", "dynamodb:GetItem"]));
    expect(actions.some((action: string) => action.includes("*"))).toBe(false);
  });
});

describe("dashboard origin", () => {
  it("lets browsers call the API only from the stage's dashboard domain", async () => {
    const { apiCors } = await load("web-origin.ts");
    expect(of("ApiGatewayV2")[0]!.args.cors).toBe(false);
    expect(apiCors("dashboard.example.com").allowOrigins).toEqual(["https://dashboard.example.com"]);
  });
});

const apiRoutes = () => of("ApiGatewayV2")[0]!.calls.filter((call) => call.method === "route");
const handlerFile = (handler: string) => `${handler.slice(0, handler.lastIndexOf("."))}.ts`;

describe("deployed resources follow stacks/definitions.ts", () => {
  it("routes every manifest route, and $default, to its own handler once", () => {
    const keys = apiRoutes().map((call) => call.args[0]);
    expect(keys).toEqual([...routes.map((route) => `${route.method} ${route.path}`), "$default"]);
    expect(apiRoutes().map((call) => call.args[1].handler)).toEqual([
      ...routes.map((route) => route.handler),
      fallbackRoute.handler,
    ]);
  });

  it("records every schedule's runs under its manifest name (what admin status shows)", () => {
    for (const schedule of schedules) {
      expect(readFileSync(handlerFile(schedule.handler), "utf8"), schedule.name).toContain(
        `scheduledJob("${schedule.name}"`,
      );
    }
  });

  it("points every route, consumer and schedule at a handler file that exists", () => {
    const handlers = [...routes, fallbackRoute, ...consumers, ...schedules, ...streamConsumers].map(
      (entry) => entry.handler,
    );
    expect(handlers.filter((handler) => !existsSync(handlerFile(handler)))).toEqual([]);
  });

  it("runs every function on Node 22, arm64, with the table, the secrets and the operator's settings", () => {
    stacks.consumers.subscribe({ queue: "automationRuns", handler: "functions/automations/run.handler" });
    stacks.schedules.schedule({ name: "sweepDue", cron: "* * * * ? *", handler: "functions/x/sweep.handler" });
    const functions = deployedFunctions();
    expect(functions.length).toBe(routes.length + 1 + consumers.length + schedules.length + streamConsumers.length + 2);
    for (const fn of functions) {
      expect(fn).toMatchObject({ runtime: "nodejs22.x", architecture: "arm64" });
      expect(fn.environment).toMatchObject({
        TABLE_NAME: `${table.name}-name`,
        JWT_ISSUER: "https://Identity",
        JWT_AUDIENCE: "dashboard",
        JWKS_URL: "https://Identity/.well-known/jwks.json",
        TOKEN_SIGNING_KEY: "secret:TokenSigningKey",
        PUBLIC_BASE_URL: "https://Api",
      });
      expect(fn.environment.PROVIDER).toBe("twilio");
      expect(fn.environment.RATE_LIMIT_REQUESTS).toBe(shell.RATE_LIMIT_REQUESTS);
      expect(fn.environment).not.toHaveProperty("JWKS_JSON");
      expect(fn.environment).not.toHaveProperty("DYNAMODB_ENDPOINT");
      expect(fn.link[0].name).toBe(`${table.name}Data-name`);
    }
  });

  it("grants the table's item operations only, not dynamodb:*", () => {
    const access = of("Linkable").find((link) => link.name === `${table.name}Data`)!;
    const actions: string[] = access.args.include[0].actions;
    expect(actions).toContain("dynamodb:Query");
    expect(actions.every((action) => action.startsWith("dynamodb:") && !action.includes("*"))).toBe(true);
    expect(actions).not.toContain("dynamodb:Scan");
  });

  it("creates the single table with the manifest's keys, indexes and TTL", () => {
    const [dynamo] = of("Dynamo");
    expect(dynamo!.args.primaryIndex).toEqual({ hashKey: "pk", rangeKey: "sk" });
    expect(Object.keys(dynamo!.args.globalIndexes)).toEqual(Object.keys(table.globalIndexes));
    expect(dynamo!.args.ttl).toBe(table.ttlAttribute);
  });

  it("feeds stream consumers from the table's stream, only the changes they name, with partial batch responses", () => {
    const [dynamo] = of("Dynamo");
    expect(dynamo!.args.stream).toBe("new-and-old-images");
    expect(dynamo!.calls.map((call) => call.args[0])).toEqual(
      streamConsumers.map((consumer) => consumer.name.charAt(0).toUpperCase() + consumer.name.slice(1)),
    );
    streamConsumers.forEach((consumer, index) => {
      const [, fn, args] = dynamo!.calls[index]!.args;
      expect(args.filters).toEqual(
        consumer.records.map(({ eventName, entity, where = {} }) => ({
          eventName: [eventName],
          dynamodb: {
            NewImage: {
              entity: { S: [entity] },
              ...Object.fromEntries(Object.entries(where).map(([name, value]) => [name, { S: [value] }])),
            },
          },
        })),
      );
      expect(args.transform.eventSourceMapping).toMatchObject({
        functionResponseTypes: ["ReportBatchItemFailures"],
        batchSize: consumer.batchSize,
      });
      const sends = (consumer.sendsTo ?? []).map(
        (queue) => `${queue.charAt(0).toUpperCase()}${queue.slice(1)}Send-name`,
      );
      expect(fn.link.map((link: any) => link.name)).toEqual([`${table.name}Data-name`, ...sends]);
    });
    // The intake outbox receives only leads inserted Pending.
    expect(dynamo!.calls[0]!.args[2].filters).toEqual([
      {
        eventName: ["INSERT"],
        dynamodb: { NewImage: { entity: { S: ["Lead"] }, processingStatus: { S: ["Pending"] } } },
      },
    ]);
  });

  it("gives every queue a dead-letter queue after maxReceiveCount receives", () => {
    for (const [name, definition] of Object.entries(queues)) {
      const id = name.charAt(0).toUpperCase() + name.slice(1);
      const main = of("Queue").find((queue) => queue.name === `${id}Queue`)!;
      expect(main.args.dlq).toEqual({ queue: `arn:${id}Dlq`, retry: definition.maxReceiveCount });
      expect(main.args.visibilityTimeout).toBe(`${definition.visibilityTimeoutSeconds} seconds`);
    }
  });

  it("subscribes a consumer with partial batch responses, its queue's batch size and timeout", () => {
    stacks.consumers.subscribe({
      queue: "leadIntake",
      handler: "functions/leads/process.handler",
      sendsTo: ["automationRuns"],
    });
    const [fn, args] = of("Queue")
      .find((queue) => queue.name === "LeadIntakeQueue")!
      .calls.at(-1)!.args;
    expect(args).toEqual({
      batch: {
        size: queues.leadIntake.batchSize,
        window: `${queues.leadIntake.batchingWindowSeconds} seconds`,
        partialResponses: true,
      },
      transform: {
        eventSourceMapping: { scalingConfig: { maximumConcurrency: queues.leadIntake.maximumConcurrency } },
      },
    });
    expect(fn.timeout).toBe(`${queues.leadIntake.consumerTimeoutSeconds} seconds`);
    expect(fn.link.map((link: any) => link.name)).toEqual([`${table.name}Data-name`, "AutomationRunsSend-name"]);
  });

  it("schedules timed work as an EventBridge cron named after the manifest entry", () => {
    const cron = stacks.schedules.schedule({
      name: "dueMessages",
      cron: "0/5 * * * ? *",
      handler: "functions/m/due.handler",
    });
    expect(cron.name).toBe("DueMessagesCron-name");
    expect(of("Cron").at(-1)!.args.schedule).toBe("cron(0/5 * * * ? *)");
  });

  it("lets a function send only to the queues it declares", () => {
    const args = stacks.functions.handlerArgs({ handler: "functions/x.handler", sendsTo: ["outboundMessages"] });
    expect(args.link.map((link: any) => link.name)).toEqual(["OutboundMessagesSend-name"]);
    expect(Object.keys(args.environment)).toEqual([queues.outboundMessages.urlEnv]);
    const send = of("Linkable").find((link) => link.name === "OutboundMessagesSend")!;
    expect(send.args.include[0]).toEqual({ actions: ["sqs:SendMessage"], resources: ["arn:OutboundMessagesQueue"] });
  });

  it("keeps every queue's visibility timeout at least 6 × its consumer's timeout plus the batching window (AWS guidance)", () => {
    for (const consumer of consumers) {
      const definition = queues[consumer.queue];
      expect(definition.visibilityTimeoutSeconds, consumer.queue).toBeGreaterThanOrEqual(
        6 * definition.consumerTimeoutSeconds + definition.batchingWindowSeconds,
      );
    }
  });

  it("caps every consumer's concurrency within the SQS event source's range (2-1000)", () => {
    for (const consumer of consumers) {
      const { maximumConcurrency } = queues[consumer.queue];
      expect(maximumConcurrency, consumer.queue).toBeGreaterThanOrEqual(2);
      expect(maximumConcurrency, consumer.queue).toBeLessThanOrEqual(1000);
    }
    const subscribed = of("Queue").flatMap((queue) => queue.calls.filter((call) => call.method === "subscribe"));
    expect(
      subscribed.every((call) => call.args[1].transform.eventSourceMapping.scalingConfig.maximumConcurrency >= 2),
    ).toBe(true);
  });

  it("refuses to deploy a stage without carrier credentials instead of running the simulator inside Lambda", () => {
    expect(stacks.functions.deployedProvider("ACstage")).toBe("twilio");
    expect(stacks.functions.deployedProvider("", "KEYtelnyx")).toBe("telnyx");
    expect(() => stacks.functions.deployedProvider("")).toThrow(
      /Stage "test" has no carrier credentials[\s\S]*sst secret set TwilioAccountSid/,
    );
  });
});

describe("alarms notify the operator's SNS topic", () => {
  const alarms = () => of("MetricAlarm");
  const named = (name: string) => alarms().find((alarm) => alarm.name === name)!;
  const topicArn = "arn:Alarms";

  it("sends every alarm (and its recovery) to the topic, which the deploying shell's ALARM_EMAIL subscribes to", () => {
    expect(of("SnsTopic").map((topic) => topic.name)).toEqual(["Alarms"]);
    expect(of("TopicSubscription")[0]!.args).toEqual({
      topic: topicArn,
      protocol: "email",
      endpoint: shell.ALARM_EMAIL,
    });
    for (const alarm of alarms()) {
      expect(alarm.args.alarmActions, alarm.name).toEqual([topicArn]);
      expect(alarm.args.okActions, alarm.name).toEqual([topicArn]);
      expect(alarm.args.alarmDescription, alarm.name).toMatch(/\w/);
    }
  });

  it("alarms on any message in a DLQ and on the oldest message's age, for every queue", () => {
    for (const name of Object.keys(queues)) {
      const id = name.charAt(0).toUpperCase() + name.slice(1);
      expect(named(`${id}DeadLetters`).args).toMatchObject({
        namespace: "AWS/SQS",
        metricName: "ApproximateNumberOfMessagesVisible",
        dimensions: { QueueName: `${id}Dlq-queue` },
        threshold: 0,
        comparisonOperator: "GreaterThanThreshold",
      });
      expect(named(`${id}OldestMessage`).args).toMatchObject({
        metricName: "ApproximateAgeOfOldestMessage",
        dimensions: { QueueName: `${id}Queue-queue` },
        threshold: stacks.alarms.oldestMessageAgeAlarmSeconds[name],
      });
    }
  });

  it("alarms on errors and throttles of every consumer and schedule, and on a schedule EventBridge failed to run", () => {
    for (const consumer of consumers) {
      const id = consumer.queue.charAt(0).toUpperCase() + consumer.queue.slice(1);
      for (const metric of ["Errors", "Throttles"]) {
        expect(named(`${id}Consumer${metric}`).args).toMatchObject({
          namespace: "AWS/Lambda",
          metricName: metric,
          dimensions: { FunctionName: `${consumer.handler}-function` },
        });
      }
    }
    for (const schedule of schedules) {
      const id = schedule.name.charAt(0).toUpperCase() + schedule.name.slice(1);
      expect(named(`${id}ScheduleErrors`).args.dimensions).toEqual({ FunctionName: `${schedule.handler}-function` });
      expect(named(`${id}ScheduleThrottles`).args.metricName).toBe("Throttles");
      expect(named(`${id}ScheduleFailed`).args).toMatchObject({
        namespace: "AWS/Events",
        metricName: "FailedInvocations",
        dimensions: { RuleName: `${id}Cron-rule` },
      });
    }
  });

  it("alarms on the API's 5xx rate and on DynamoDB throttled requests", () => {
    const api = named("Api5xxRate").args;
    expect(api.threshold).toBe(stacks.alarms.api5xxRatePercent);
    expect(api.metricQueries.map((query: any) => query.metric?.metricName ?? query.expression)).toEqual([
      "5xx",
      "Count",
      "IF(errors >= 5, 100 * errors / requests, 0)",
    ]);
    expect(api.metricQueries[0].metric.dimensions).toEqual({ ApiId: "Api-id" });
    const throttles = named("TableThrottles").args;
    expect(throttles.metricQueries.map((query: any) => query.metric?.metricName ?? query.expression)).toEqual([
      "ReadThrottleEvents",
      "WriteThrottleEvents",
      "reads + writes",
    ]);
    expect(throttles.metricQueries[0].metric.dimensions).toEqual({ TableName: `${table.name}-name` });
  });
});
