import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import { serviceName } from "#core/observability/index";

/**
 * Business metrics as CloudWatch EMF lines (no API calls); `POWERTOOLS_METRICS_DISABLED` silences them. A module apart
 * from the logger's (core/observability/index.ts), which every function loads: only a function that counts something
 * (events, intake, the sweeps) bundles Powertools Metrics (~10 KB minified).
 */
const metrics = new Metrics({ namespace: "LeadMessagingApi", serviceName });

/**
 * Counts one business occurrence (`LeadsReceived`, `MessagesSent` …) as its own
 * EMF line, flushed at once so a crash cannot lose it. Dimensions stay few and
 * low-cardinality (outcome, reason, code): never an organization or a phone number.
 */
export function countMetric(name: string, dimensions: Record<string, string> = {}, value = 1): void {
  const single = metrics.singleMetric();
  for (const [dimension, dimensionValue] of Object.entries(dimensions)) single.addDimension(dimension, dimensionValue);
  single.addMetric(name, MetricUnit.Count, value);
}
