import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  consumers,
  fallbackRoute,
  httpLimits,
  queues,
  routes,
  schedules,
  streamConsumers,
  streamFailurePolicy,
  type HandlerDefinition,
  type QueueName,
} from "#stacks/definitions";
import { resourceName } from "#stacks/names";
import { phoneMetadataFile } from "#stacks/packaged-files";
import { scheduleInput } from "#local/scheduler";
import { grantsOf, hostileShell, loadGraph, type Graph, type RecordedResource } from "./graph.ts";

/**
 * What `sst deploy` would build, read from the resource graph the real sst.config.ts registers through SST's own
 * components under Pulumi mocks (tests/deploy/mock-deploy.mjs, run by tests/deploy/setup.ts), checked against the
 * manifest (stacks/definitions.ts). AWS-side validation (names, quotas, policy grammar) is out of its sight:
 * docs/decisions.md, issue 23.
 */

const root = join(import.meta.dirname, "../..");
const tableActions = [
  "dynamodb:GetItem",
  "dynamodb:BatchGetItem",
  "dynamodb:Query",
  "dynamodb:PutItem",
  "dynamodb:UpdateItem",
  "dynamodb:DeleteItem",
  "dynamodb:BatchWriteItem",
  "dynamodb:ConditionCheckItem",
  "dynamodb:TransactGetItems",
  "dynamodb:TransactWriteItems",
];
const queueConsumerActions = [
  "sqs:ChangeMessageVisibility",
  "sqs:DeleteMessage",
  "sqs:GetQueueAttributes",
  "sqs:GetQueueUrl",
  "sqs:ReceiveMessage",
];
const streamReadActions = [
  "dynamodb:DescribeStream",
  "dynamodb:GetRecords",
  "dynamodb:GetShardIterator",
  "dynamodb:ListStreams",
];
/** Lambda's limit on a function's environment: keys and values together. */
const environmentLimitBytes = 4 * 1024;

type Trigger =
  | { kind: "route"; routeKey: string; definition: HandlerDefinition }
  | { kind: "queue"; queue: QueueName; definition: HandlerDefinition }
  | { kind: "stream"; name: string; definition: HandlerDefinition }
  | { kind: "schedule"; name: string; definition: HandlerDefinition };

const workQueue = (graph: Graph, name: QueueName) => graph.queue(`${resourceName(name)}Queue`);
const deadLetterQueue = (graph: Graph, name: QueueName) => graph.queue(`${resourceName(name)}Dlq`);
const streamDeadLetterQueue = (graph: Graph) =>
  graph.queue(`${resourceName(streamFailurePolicy.deadLetterQueue.name)}Dlq`);

/** Every function of the graph with what invokes it (route integration, event source mapping, schedule target). */
function triggersOf(graph: Graph): Map<RecordedResource, Trigger[]> {
  const triggers = new Map<RecordedResource, Trigger[]>(graph.functions.map((fn) => [fn, []]));
  const add = (fn: RecordedResource | undefined, trigger: Trigger) => {
    if (!fn) throw new Error(`${trigger.kind} ${JSON.stringify(trigger)} targets no function of the graph`);
    triggers.get(fn)!.push(trigger);
  };
  const integrations = new Map(
    graph
      .ofType("aws:apigatewayv2/integration:Integration")
      .map((integration) => [`integrations/${integration.name}-mock-id`, integration]),
  );
  const manifestRoutes = new Map<string, HandlerDefinition>([
    ...routes.map((route) => [`${route.method} ${route.path}`, route] as const),
    [fallbackRoute.routeKey, fallbackRoute],
  ]);
  for (const route of graph.ofType("aws:apigatewayv2/route:Route")) {
    const integration = integrations.get(route.inputs.target)!;
    add(graph.functionByArn(integration.inputs.integrationUri), {
      kind: "route",
      routeKey: route.inputs.routeKey,
      definition: manifestRoutes.get(route.inputs.routeKey)!,
    });
  }
  for (const consumer of consumers) {
    for (const mapping of graph.eventSourceMappingsOf(graph.queueArn(workQueue(graph, consumer.queue)))) {
      add(graph.functionByName(mapping.inputs.functionName), {
        kind: "queue",
        queue: consumer.queue,
        definition: consumer,
      });
    }
  }
  for (const mapping of graph.eventSourceMappingsOf(graph.streamArn)) {
    const consumer = streamConsumers.find(
      (candidate) => mapping.name === `LeadsTableSubscriber${resourceName(candidate.name)}EventSourceMapping`,
    )!;
    add(graph.functionByName(mapping.inputs.functionName), {
      kind: "stream",
      name: consumer.name,
      definition: consumer,
    });
  }
  const rules = graph.ofType("aws:cloudwatch/eventRule:EventRule");
  for (const target of graph.ofType("aws:cloudwatch/eventTarget:EventTarget")) {
    const rule = rules.find((candidate) => graph.physical(candidate) === target.inputs.rule)!;
    const schedule = schedules.find((candidate) => rule.name === `${resourceName(candidate.name)}CronRule`)!;
    add(graph.functionByArn(target.inputs.arn), { kind: "schedule", name: schedule.name, definition: schedule });
  }
  return triggers;
}

/** The grants the manifest gives a function: its table data, its `sendsTo` queues, mail, and what its trigger needs. */
function expectedGrants(graph: Graph, trigger: Trigger): string[] {
  const tableArn = `arn:aws:dynamodb:us-east-1:123456789012:table/${graph.physical(graph.appTable)}`;
  const grants = tableActions.flatMap((action) => [`${action} on ${tableArn}`, `${action} on ${tableArn}/index/*`]);
  for (const queue of trigger.definition.sendsTo ?? [])
    grants.push(`sqs:SendMessage on ${graph.queueArn(workQueue(graph, queue))}`);
  // The mail port's SES call (core/mail); its resource is "*", kept to the stage's sender by a condition.
  if (trigger.definition.sendsMail) grants.push("ses:SendEmail on *");
  if (trigger.kind === "queue")
    grants.push(
      ...queueConsumerActions.map((action) => `${action} on ${graph.queueArn(workQueue(graph, trigger.queue))}`),
    );
  if (trigger.kind === "stream") {
    grants.push(...streamReadActions.map((action) => `${action} on ${graph.streamArn}`));
    // Lambda sends the failed batch's description to the on-failure destination with the function's own role.
    grants.push(`sqs:SendMessage on ${graph.queueArn(streamDeadLetterQueue(graph))}`);
  }
  return [...new Set(grants)].sort();
}

const alarmsOn = (graph: Graph, namespace: string, metricName: string, dimension: string, value: string) =>
  graph
    .ofType("aws:cloudwatch/metricAlarm:MetricAlarm")
    .filter(
      (alarm) =>
        alarm.inputs.namespace === namespace &&
        alarm.inputs.metricName === metricName &&
        alarm.inputs.dimensions?.[dimension] === value,
    );

describe.each(["ci", "prod"] as const)("the %s stage as sst deploy builds it", (stage) => {
  const graph = loadGraph(stage);
  const triggers = triggersOf(graph);

  it("deploys without a failed build or an unanswered call back into the CLI", () => {
    expect(graph.deploy.failure).toBeUndefined();
    expect(graph.deploy.rpcErrors).toEqual([]);
    expect(graph.deploy.app.removal).toBe(stage === "prod" ? "retain" : "remove");
  });

  it("deploys every manifest route and nothing else, each a v2 proxy integration to a function of the route's handler file", () => {
    const deployed = graph.ofType("aws:apigatewayv2/route:Route");
    expect(deployed.map((route) => route.inputs.routeKey).sort()).toEqual(
      [...routes.map((route) => `${route.method} ${route.path}`), fallbackRoute.routeKey].sort(),
    );
    const integrations = graph.ofType("aws:apigatewayv2/integration:Integration");
    for (const route of deployed) {
      const integration = integrations.find(
        (candidate) => route.inputs.target === `integrations/${candidate.name}-mock-id`,
      );
      expect(integration?.inputs, route.inputs.routeKey).toMatchObject({
        integrationType: "AWS_PROXY",
        payloadFormatVersion: "2.0",
      });
      const fn = graph.functionByArn(integration!.inputs.integrationUri);
      const manifest = [...routes, { ...fallbackRoute, method: "", path: "" }].find(
        (candidate) =>
          (candidate.method ? `${candidate.method} ${candidate.path}` : fallbackRoute.routeKey) ===
          route.inputs.routeKey,
      )!;
      expect(fn?.inputs.handler, route.inputs.routeKey).toBe(manifest.handler);
      // The timeout the local gateway gives it too; the handler answers 503 before it, the gateway gives up after it.
      expect(fn?.inputs.timeout, route.inputs.routeKey).toBe(httpLimits.functionTimeoutSeconds);
      expect(httpLimits.functionTimeoutSeconds * 1000 - httpLimits.earlyTimeoutMs).toBeLessThan(
        httpLimits.integrationTimeoutSeconds * 1000,
      );
      const file = manifest.handler.replace(/\.[^.]+$/, "");
      expect(
        [".ts", ".js"].some((extension) => existsSync(join(root, file + extension))),
        `${manifest.handler} exists`,
      ).toBe(true);
    }
  });

  it("invokes every function from exactly one trigger of the manifest", () => {
    const byFunction = [...triggers].map(([fn, found]) => [fn.inputs.handler, found.map((trigger) => trigger.kind)]);
    expect(byFunction.filter(([, kinds]) => kinds!.length !== 1)).toEqual([]);
    expect(graph.functions).toHaveLength(
      routes.length + 1 + consumers.length + streamConsumers.length + schedules.length,
    );
    // Besides them, only the identity provider's issuer, reached at its function URL.
    expect(graph.identityFunctions.map((fn) => fn.inputs.handler)).toEqual(["functions/auth/issuer.handler"]);
  });

  it("fires every schedule's function with the input `{}`, as the local scheduler does", () => {
    const targets = graph.ofType("aws:cloudwatch/eventTarget:EventTarget");
    expect(targets).toHaveLength(schedules.length);
    expect(targets.map((target) => target.inputs.input)).toEqual(schedules.map(() => JSON.stringify(scheduleInput)));
  });

  it("gives every queue exactly one consumer with partial batch responses, its concurrency, a long enough visibility and its DLQ", () => {
    for (const [name, definition] of Object.entries(queues) as [QueueName, (typeof queues)[QueueName]][]) {
      const queue = workQueue(graph, name);
      const mappings = graph.eventSourceMappingsOf(graph.queueArn(queue));
      expect(mappings, name).toHaveLength(1);
      const mapping = mappings[0]!;
      const fn = graph.functionByName(mapping.inputs.functionName)!;
      expect(mapping.inputs, name).toMatchObject({
        functionResponseTypes: ["ReportBatchItemFailures"],
        batchSize: definition.batchSize,
        scalingConfig: { maximumConcurrency: definition.maximumConcurrency },
      });
      expect(fn.inputs.timeout, name).toBe(definition.consumerTimeoutSeconds);
      expect(queue.inputs.visibilityTimeoutSeconds, name).toBeGreaterThanOrEqual(
        6 * fn.inputs.timeout + (mapping.inputs.maximumBatchingWindowInSeconds ?? 0),
      );
      expect(JSON.parse(queue.inputs.redrivePolicy), name).toEqual({
        deadLetterTargetArn: graph.queueArn(deadLetterQueue(graph, name)),
        maxReceiveCount: definition.maxReceiveCount,
      });
      expect(
        graph.eventSourceMappingsOf(graph.queueArn(deadLetterQueue(graph, name))),
        `${name} DLQ has no consumer`,
      ).toEqual([]);
    }
  });

  it("gives every stream consumer a failure destination, bounded retries and record age, bisection and its filters", () => {
    const dlq = streamDeadLetterQueue(graph);
    for (const consumer of streamConsumers) {
      const mapping = graph
        .eventSourceMappingsOf(graph.streamArn)
        .find((candidate) => candidate.name === `LeadsTableSubscriber${resourceName(consumer.name)}EventSourceMapping`);
      expect(mapping?.inputs, consumer.name).toMatchObject({
        functionResponseTypes: ["ReportBatchItemFailures"],
        batchSize: consumer.batchSize,
        startingPosition: "TRIM_HORIZON",
        maximumRetryAttempts: streamFailurePolicy.maximumRetryAttempts,
        maximumRecordAgeInSeconds: streamFailurePolicy.maximumRecordAgeSeconds,
        bisectBatchOnFunctionError: true,
        destinationConfig: { onFailure: { destinationArn: graph.queueArn(dlq) } },
      });
      expect(mapping!.inputs.filterCriteria.filters, consumer.name).toHaveLength(consumer.records.length);
    }
    expect(streamFailurePolicy.maximumRetryAttempts).toBeGreaterThanOrEqual(0);
    // Inside the stream's 24-hour retention, so the failed records can still be read back.
    expect(streamFailurePolicy.maximumRecordAgeSeconds).toBeLessThan(24 * 3600);
    expect(dlq.inputs.messageRetentionSeconds).toBe(14 * 24 * 3600);
  });

  it("grants each function exactly what the manifest says it uses, no more and no less", () => {
    const mismatches = [];
    for (const [fn, [trigger]] of triggers) {
      const role = graph.roleOf(fn);
      const granted = grantsOf(role.inputs.inlinePolicies[0].policy);
      const expected = expectedGrants(graph, trigger!);
      const extra = granted.filter((grant) => !expected.includes(grant));
      const missing = expected.filter((grant) => !granted.includes(grant));
      if (extra.length || missing.length) mismatches.push({ handler: fn.inputs.handler, extra, missing });
      expect(role.inputs.managedPolicyArns, fn.inputs.handler).toEqual([
        "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
      ]);
    }
    expect(mismatches).toEqual([]);
  });

  it("packages the phone metadata beside every function, which reads it on its first phone parse", () => {
    // core/shared/phone-metadata.ts reads it from LAMBDA_TASK_ROOT: a function without it would fail at run time.
    const metadata = readFileSync(join(root, phoneMetadataFile.from), "utf8");
    const without = graph.functions.filter(
      (fn) =>
        !existsSync(join(graph.packageDirectoryOf(fn), phoneMetadataFile.to)) ||
        readFileSync(join(graph.packageDirectoryOf(fn), phoneMetadataFile.to), "utf8") !== metadata,
    );
    expect(without.map((fn) => fn.inputs.handler)).toEqual([]);
  });

  it("asks SST's build to minify every function, as the bundle bench measures them", () => {
    // build.go minifies only when `nodejs.minify` is set, although the component's docs say it defaults to true.
    const unminified = [...triggers.keys()].filter((fn) => !graph.minifiedBuild(fn));
    expect(unminified.map((fn) => fn.inputs.handler)).toEqual([]);
  });

  it("bundles the role's credentials from the environment into every function, not the SDK's whole chain", () => {
    // stacks/bundle-plugins.mjs, run as SST's plugin relay runs it: the chain's providers log their own names, so a
    // bundle that still has the chain has its strings, and one with the environment's provider has that one's.
    const chain = "@aws-sdk/credential-provider-node - defaultProvider";
    const environment = "@aws-sdk/credential-provider-env - fromEnv";
    const bundles = [...triggers.keys()].map((fn) => ({ handler: fn.inputs.handler, code: graph.bundleOf(fn) }));
    expect(bundles.filter(({ code }) => code.includes(chain)).map(({ handler }) => handler)).toEqual([]);
    expect(bundles.filter(({ code }) => !code.includes(environment)).map(({ handler }) => handler)).toEqual([]);
  });

  it("packages every function split, its chunks beside its entry", () => {
    // SST zips the whole build directory: each chunk the entry imports, or loads on first use, must be in it at the
    // relative path the importing file names, and the handler's file must be where `handler` says. Every function
    // loads something on first use (the SDK's event streams at least), so each has chunks.
    const problems: string[] = [];
    for (const fn of triggers.keys()) {
      const out = graph.packageDirectoryOf(fn);
      const code = readdirSync(out, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".mjs"));
      if (!existsSync(join(out, `${fn.inputs.handler.replace(/\.[^.]+$/, "")}.mjs`)))
        problems.push(`${fn.inputs.handler}: no handler file`);
      if (code.length < 2) problems.push(`${fn.inputs.handler}: ${code.length} code file, not split`);
      for (const file of code) {
        const source = readFileSync(join(out, file), "utf8");
        for (const [, chunk] of source.matchAll(/(?:from|import\()\s*"(\.\.?\/[^"]+)"/g))
          if (!existsSync(join(out, dirname(file), chunk!))) problems.push(`${file} imports ${chunk}, not packaged`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("grants no queue a function's bundled code has no message for", () => {
    // Tree shaking keeps a queue's message declarations (`defineMessage("lead.received", "leadIntake", …)`) only in
    // bundles that can publish them: a sendsTo queue none of whose messages is bundled is a grant nothing uses.
    const unused = [];
    for (const [fn, [trigger]] of triggers) {
      const bundle = graph.bundleOf(fn);
      for (const queue of trigger!.definition.sendsTo ?? []) {
        if (!new RegExp(`"[a-z]+(?:\\.[a-z]+)+","${queue}"`).test(bundle))
          unused.push(`${fn.inputs.handler} → ${queue}`);
      }
    }
    expect(unused).toEqual([]);
  });

  it("lets only Lambda assume the function roles", () => {
    const trusts = new Set(graph.allFunctions.map((fn) => graph.roleOf(fn).inputs.assumeRolePolicy as string));
    const statements = [...trusts].flatMap((trust) => (JSON.parse(trust) as { Statement: unknown[] }).Statement);
    expect(
      statements.map((statement: any) => ({
        effect: statement.Effect,
        action: [statement.Action].flat(),
        principal: statement.Principal,
      })),
    ).toEqual(
      statements.map(() => ({
        effect: "Allow",
        action: ["sts:AssumeRole"],
        principal: { Service: "lambda.amazonaws.com" },
      })),
    );
  });

  it("gives every function the URL variable of each queue it sends to, the stage's carrier, and an environment under 4 KB", () => {
    for (const [fn, [trigger]] of triggers) {
      const variables = fn.inputs.environment.variables as Record<string, string>;
      const size = Object.entries(variables).reduce(
        (bytes, [key, value]) => bytes + Buffer.byteLength(key) + Buffer.byteLength(value),
        0,
      );
      expect(size, fn.inputs.handler).toBeLessThan(environmentLimitBytes);
      const queueVariables = Object.keys(variables).filter((key) =>
        Object.values(queues).some((queue) => queue.urlEnv === key),
      );
      expect(queueVariables.sort(), fn.inputs.handler).toEqual(
        (trigger!.definition.sendsTo ?? []).map((queue) => queues[queue].urlEnv).sort(),
      );
      expect(variables.PROVIDER, fn.inputs.handler).toBe("twilio");
      expect(
        Object.keys(variables).filter((key) => key in hostileShell && key !== "PROVIDER"),
        fn.inputs.handler,
      ).toEqual([]);
      expect(fn.inputs).toMatchObject({ runtime: "nodejs22.x", architectures: ["arm64"] });
    }
  });

  it("alarms on every queue, dead-letter queue, consumer, stream consumer and schedule", () => {
    const missing: string[] = [];
    const need = (what: string, alarms: RecordedResource[]) =>
      void (alarms.length === 1 || missing.push(`${what}: ${alarms.length} alarms`));
    for (const name of Object.keys(queues) as QueueName[]) {
      need(
        `${name} oldest message`,
        alarmsOn(
          graph,
          "AWS/SQS",
          "ApproximateAgeOfOldestMessage",
          "QueueName",
          graph.physical(workQueue(graph, name)),
        ),
      );
      need(
        `${name} dead letters`,
        alarmsOn(
          graph,
          "AWS/SQS",
          "ApproximateNumberOfMessagesVisible",
          "QueueName",
          graph.physical(deadLetterQueue(graph, name)),
        ),
      );
    }
    need(
      "stream dead letters",
      alarmsOn(
        graph,
        "AWS/SQS",
        "ApproximateNumberOfMessagesVisible",
        "QueueName",
        graph.physical(streamDeadLetterQueue(graph)),
      ),
    );
    for (const [fn, [trigger]] of triggers) {
      if (trigger!.kind === "route") continue;
      need(`${fn.inputs.handler} errors`, alarmsOn(graph, "AWS/Lambda", "Errors", "FunctionName", graph.physical(fn)));
      if (trigger!.kind === "stream")
        need(
          `${fn.inputs.handler} iterator age`,
          alarmsOn(graph, "AWS/Lambda", "IteratorAge", "FunctionName", graph.physical(fn)),
        );
    }
    for (const rule of graph.ofType("aws:cloudwatch/eventRule:EventRule")) {
      need(
        `${rule.name} failed invocations`,
        alarmsOn(graph, "AWS/Events", "FailedInvocations", "RuleName", graph.physical(rule)),
      );
    }
    expect(missing).toEqual([]);
  });
});

describe("a deploy from a shell holding local settings", () => {
  it("builds exactly what a clean shell builds: the deploy computes its safety settings itself", () => {
    const clean = loadGraph("ci");
    const hostile = loadGraph("ci-hostile-shell");
    expect(hostile.deploy.failure).toBeUndefined();
    const variables = (graph: Graph) =>
      graph.allFunctions.flatMap((fn) =>
        Object.entries(fn.inputs.environment.variables as Record<string, string>).map(
          ([key, value]) => `${key}=${value}`,
        ),
      );
    const changed = new Set(
      variables(hostile)
        .filter((variable) => !variables(clean).includes(variable))
        .map((variable) => variable.split("=")[0]),
    );
    expect([...changed].sort()).toEqual([]);
    // Registration order follows asynchronous builds: resources are compared by type and name, and physical names
    // without the random suffix SST gives each deploy (`lead-messaging-api-ci-Api-sarmzcte`).
    const randomSuffix = /-[a-z]{8}(?=")/g;
    const byName = (graph: Graph) =>
      new Map(
        graph.deploy.resources.map((resource) => [
          `${resource.type} ${resource.name}`,
          JSON.stringify(resource.inputs).replace(randomSuffix, "-<random>"),
        ]),
      );
    const [cleanResources, hostileResources] = [byName(clean), byName(hostile)];
    expect([...hostileResources.keys()].sort()).toEqual([...cleanResources.keys()].sort());
    expect(
      [...hostileResources].filter(([key, inputs]) => cleanResources.get(key) !== inputs).map(([key]) => key),
    ).toEqual([]);
  });
});
