import type { CallRecord, countingMiddleware, ItemReader } from "#core/observability/call-count";

/** Whether this process counts its AWS calls (`MEASURE_CALLS=1`: `npm run bench -- cost`, `hot-org`, analytics). */
export const measuringEnabled = (): boolean => process.env.MEASURE_CALLS === "1";

type CountingMiddleware = ReturnType<typeof countingMiddleware>;

/**
 * The SDK middleware that counts calls (core/observability/call-count.ts), its module loaded with the first call the
 * client makes. A client adds it only when `measuringEnabled()`, so in a deployed function the counting code is a
 * chunk never loaded, not part of every cold start.
 */
export function lazyCountingMiddleware(service: CallRecord["service"], read?: ItemReader) {
  let counting: Promise<CountingMiddleware> | undefined;
  return (next: Parameters<CountingMiddleware>[0], context: Parameters<CountingMiddleware>[1]) =>
    async (args: Parameters<ReturnType<CountingMiddleware>>[0]) => {
      counting ??= import("#core/observability/call-count").then((module) => module.countingMiddleware(service, read));
      return (await counting)(next, context)(args);
    };
}
