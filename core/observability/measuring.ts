import type { CallRecord, ItemReader } from "#core/observability/call-count";

/** Whether this process counts its AWS calls (`MEASURE_CALLS=1`: `npm run bench -- cost`, `hot-org`, analytics). */
export const measuringEnabled = (): boolean => process.env.MEASURE_CALLS === "1";

/**
 * The SDK middleware that counts calls (core/observability/call-count.ts), loaded with the first call it counts: a
 * client adds it only when measuring, so the counting code is a chunk no deployed function ever loads.
 */
export function countingWhenMeasured(service: CallRecord["service"], read?: ItemReader) {
  type Counting = ReturnType<typeof import("#core/observability/call-count").countingMiddleware>;
  let counting: Promise<Counting> | undefined;
  return (next: Parameters<Counting>[0], context: Parameters<Counting>[1]) =>
    async (args: Parameters<ReturnType<Counting>>[0]) => {
      counting ??= import("#core/observability/call-count").then(({ countingMiddleware }) =>
        countingMiddleware(service, read),
      );
      return (await counting)(next, context)(args);
    };
}
