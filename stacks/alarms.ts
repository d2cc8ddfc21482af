import {
  consumers,
  queues as queueDefinitions,
  schedules,
  streamConsumers,
  streamFailurePolicy,
  type QueueName,
} from "./definitions.ts";
import { api } from "./api.ts";
import { streamSubscribers, subscribers } from "./consumers.ts";
import { resourceName } from "./names.ts";
import { queues, streamFailures } from "./queues.ts";
import { crons } from "./schedules.ts";
import { table } from "./table.ts";

/**
 * What pages an operator: every alarm notifies one SNS topic. `ALARM_EMAIL` in
 * the deploying shell subscribes that address (AWS sends a confirmation mail
 * first); other subscribers (chat, paging) can be added to the topic by hand.
 */
export const alarmTopic = new sst.aws.SnsTopic("Alarms");

const alarmEmail = process.env.ALARM_EMAIL;
export const alarmEmailSubscription = alarmEmail
  ? new aws.sns.TopicSubscription("AlarmsEmail", { topic: alarmTopic.arn, protocol: "email", endpoint: alarmEmail })
  : undefined;

/** Oldest message age (seconds) that means a queue's consumer is not keeping up. */
export const oldestMessageAgeAlarmSeconds: Record<QueueName, number> = {
  leadIntake: 300,
  outboundMessages: 300,
  automationRuns: 900,
  outboundCalls: 300,
  /** Retries wait in the queue up to 15 minutes as SQS delays. */
  webhookDeliveries: 1800,
};

/** API answers with a 5xx above this share (%) of requests over 5 minutes (and at least 5 of them). */
export const api5xxRatePercent = 1;

const notify = { alarmActions: [alarmTopic.arn], okActions: [alarmTopic.arn], treatMissingData: "notBreaching" };
const fiveMinutes = 300;

function alarm(name: string, description: string, args: Omit<aws.cloudwatch.MetricAlarmArgs, "alarmDescription">) {
  return new aws.cloudwatch.MetricAlarm(name, { alarmDescription: description, ...notify, ...args });
}

/** Oldest unprocessed record of a stream consumer's shards (ms) that means it is stuck or not keeping up. */
export const streamIteratorAgeAlarmMs = 5 * 60 * 1000;

/** Any message in a dead-letter queue. */
function deadLettersAlarm(id: string, description: string, queueName: $util.Input<string>) {
  return alarm(`${id}DeadLetters`, description, {
    namespace: "AWS/SQS",
    metricName: "ApproximateNumberOfMessagesVisible",
    dimensions: { QueueName: queueName },
    statistic: "Maximum",
    period: 60,
    evaluationPeriods: 1,
    threshold: 0,
    comparisonOperator: "GreaterThanThreshold",
  });
}

/** Any message in a DLQ, and a work queue whose oldest message is too old. */
function queueAlarms(name: QueueName) {
  const id = resourceName(name);
  const { queue, dlq } = queues[name];
  return [
    deadLettersAlarm(
      id,
      `A ${name} message failed every attempt and waits in the DLQ: npm run admin -- dlq show ${name}`,
      dlq.nodes.queue.name,
    ),
    alarm(
      `${id}OldestMessage`,
      `The ${name} consumer is not keeping up (oldest message > ${oldestMessageAgeAlarmSeconds[name]} s)`,
      {
        namespace: "AWS/SQS",
        metricName: "ApproximateAgeOfOldestMessage",
        dimensions: { QueueName: queue.nodes.queue.name },
        statistic: "Maximum",
        period: 60,
        evaluationPeriods: 3,
        threshold: oldestMessageAgeAlarmSeconds[name],
        comparisonOperator: "GreaterThanThreshold",
      },
    ),
  ];
}

/** Errors and throttles of one background function (a consumer or a schedule's target). */
function functionAlarms(id: string, functionName: $util.Input<string>, what: string) {
  return (["Errors", "Throttles"] as const).map((metricName) =>
    alarm(`${id}${metricName}`, `${what}: Lambda ${metricName.toLowerCase()}`, {
      namespace: "AWS/Lambda",
      metricName,
      dimensions: { FunctionName: functionName },
      statistic: "Sum",
      period: fiveMinutes,
      evaluationPeriods: 1,
      threshold: 0,
      comparisonOperator: "GreaterThanThreshold",
    }),
  );
}

export const alarms = [
  ...(Object.keys(queueDefinitions) as QueueName[]).flatMap(queueAlarms),
  ...consumers.flatMap((consumer, index) =>
    functionAlarms(
      `${resourceName(consumer.queue)}Consumer`,
      subscribers[index]!.nodes.function.name,
      `The ${consumer.queue} consumer`,
    ),
  ),
  // A stream consumer swallows its errors into batchItemFailures: its iterator age and the stream DLQ are what show it.
  ...streamConsumers.flatMap((consumer, index) => {
    const id = `${resourceName(consumer.name)}Stream`;
    const functionName = streamSubscribers[index]!.nodes.function.name;
    return [
      ...functionAlarms(id, functionName, `The ${consumer.name} stream consumer`),
      alarm(
        `${id}IteratorAge`,
        `The ${consumer.name} stream consumer is behind its shard by more than ${streamIteratorAgeAlarmMs / 60_000} minutes (failing records are retried, then dead-lettered)`,
        {
          namespace: "AWS/Lambda",
          metricName: "IteratorAge",
          dimensions: { FunctionName: functionName },
          statistic: "Maximum",
          period: 60,
          evaluationPeriods: 3,
          threshold: streamIteratorAgeAlarmMs,
          comparisonOperator: "GreaterThanThreshold",
        },
      ),
    ];
  }),
  deadLettersAlarm(
    resourceName(streamFailurePolicy.deadLetterQueue.name),
    `A table-stream batch failed every attempt; its description waits in the DLQ: npm run admin -- dlq show ${streamFailurePolicy.deadLetterQueue.name}`,
    streamFailures.nodes.queue.name,
  ),
  ...schedules.flatMap((schedule, index) => [
    ...functionAlarms(
      `${resourceName(schedule.name)}Schedule`,
      crons[index]!.nodes.function.name,
      `The ${schedule.name} schedule`,
    ),
    alarm(`${resourceName(schedule.name)}ScheduleFailed`, `EventBridge could not run the ${schedule.name} schedule`, {
      namespace: "AWS/Events",
      metricName: "FailedInvocations",
      dimensions: { RuleName: crons[index]!.nodes.rule.name },
      statistic: "Sum",
      period: fiveMinutes,
      evaluationPeriods: 1,
      threshold: 0,
      comparisonOperator: "GreaterThanThreshold",
    }),
  ]),
  alarm("Api5xxRate", `More than ${api5xxRatePercent}% of API requests answered 5xx over 5 minutes`, {
    evaluationPeriods: 1,
    threshold: api5xxRatePercent,
    comparisonOperator: "GreaterThanThreshold",
    metricQueries: [
      {
        id: "errors",
        metric: {
          namespace: "AWS/ApiGateway",
          metricName: "5xx",
          dimensions: { ApiId: api.nodes.api.id },
          stat: "Sum",
          period: fiveMinutes,
        },
      },
      {
        id: "requests",
        metric: {
          namespace: "AWS/ApiGateway",
          metricName: "Count",
          dimensions: { ApiId: api.nodes.api.id },
          stat: "Sum",
          period: fiveMinutes,
        },
      },
      // Below 5 errors a window is not a rate worth waking someone for.
      { id: "rate", expression: "IF(errors >= 5, 100 * errors / requests, 0)", label: "5xx %", returnData: true },
    ],
  }),
  alarm("TableThrottles", "DynamoDB throttled reads or writes on the table", {
    evaluationPeriods: 1,
    threshold: 0,
    comparisonOperator: "GreaterThanThreshold",
    metricQueries: [
      {
        id: "reads",
        metric: {
          namespace: "AWS/DynamoDB",
          metricName: "ReadThrottleEvents",
          dimensions: { TableName: table.name },
          stat: "Sum",
          period: fiveMinutes,
        },
      },
      {
        id: "writes",
        metric: {
          namespace: "AWS/DynamoDB",
          metricName: "WriteThrottleEvents",
          dimensions: { TableName: table.name },
          stat: "Sum",
          period: fiveMinutes,
        },
      },
      { id: "throttled", expression: "reads + writes", label: "Throttled requests", returnData: true },
    ],
  }),
];
