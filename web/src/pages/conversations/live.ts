import { useEffect, useRef } from "preact/hooks";

/** How often an open inbox or thread asks whether anything changed (docs/decisions.md, "The inbox"). */
export const CHECK_EVERY_MS = 10_000;
/** How often it reloads whatever the check says, for changes the check cannot see (a read or an assignment elsewhere). */
export const RELOAD_EVERY_MS = 60_000;

/**
 * Live updates by polling: every CHECK_EVERY_MS, while the tab is visible, `check` answers a cheap fingerprint of what
 * is shown (one small read); when it differs from the last one, or RELOAD_EVERY_MS have passed, `reload` runs. A
 * hidden tab asks nothing and checks at once when it shows again.
 */
export function useLiveReload(check: () => Promise<string | undefined>, reload: () => void, key: unknown): void {
  const latest = useRef({ check, reload });
  latest.current = { check, reload };
  useEffect(() => {
    let seen: string | undefined;
    let reloadedAt = Date.now();
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      if (stopped) return;
      // A hidden tab asks nothing but keeps its timer: should its visibilitychange never come (a browser that starts
      // a page in the background), it still checks once it shows.
      if (document.visibilityState !== "visible") {
        timer = setTimeout(() => void tick(), CHECK_EVERY_MS);
        return;
      }
      const fingerprint = await latest.current.check().catch(() => undefined);
      if (stopped) return;
      const stale = Date.now() - reloadedAt >= RELOAD_EVERY_MS;
      if ((seen !== undefined && fingerprint !== undefined && fingerprint !== seen) || stale) {
        reloadedAt = Date.now();
        latest.current.reload();
      }
      if (fingerprint !== undefined) seen = fingerprint;
      timer = setTimeout(() => void tick(), CHECK_EVERY_MS);
    };
    const onVisible = () => {
      if (document.visibilityState !== "visible") return;
      clearTimeout(timer);
      void tick();
    };
    void tick();
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [key]);
}
