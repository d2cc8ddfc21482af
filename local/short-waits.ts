/**
 * The short waits of the tests and the chaos harness (production defaults live in core/messaging/config.ts and
 * core/automations): provider retries and simulated receipts finish in seconds, and logs show only warnings.
 * Values already set in the environment win.
 */
export function applyShortWaits(): void {
  // Messaging: short waits so retries and simulated receipts finish in seconds (production defaults: core/messaging).
  process.env.SIMULATOR_DELAY_SCALE ??= "0.5";
  process.env.MESSAGE_RETRY_BASE_MS ??= "200";
  process.env.MESSAGE_RETRY_MAX_DELAY_MS ??= "1000";
  process.env.MESSAGE_MAX_RETRIES ??= "2";
  // Automations: webhook retries after 200 ms, 400 ms, … instead of 5 s.
  process.env.AUTOMATION_RETRY_BASE_MS ??= "200";
  // Stream consumers run as soon as records arrive instead of gathering them for their batching window (analytics: 5 s).
  process.env.STREAM_BATCHING_WINDOW_SCALE ??= "0";
  // Structured logs and EMF metrics: only warnings and errors in the output (tests/unit/observability.test.ts checks the lines).
  process.env.POWERTOOLS_LOG_LEVEL ??= "WARN";
  process.env.POWERTOOLS_METRICS_DISABLED ??= "true";
}
