import { useState } from "preact/hooks";

/**
 * Local state that goes back to `initial` whenever `key` changes (compared with `Object.is`).
 *
 * The reset happens while rendering, not in an effect: Preact runs effects after the frame is painted, so an effect
 * that resets on mount can land after the user (or a test driving the browser) has already typed or clicked, and put
 * the initial value back over it. That lost an automation's "Fields to set" in CI.
 *
 * `key` must be stable from one render to the next (a string, a number, a boolean): a new object or array each render
 * would reset the state at every render.
 */
export function useStateResetBy<T>(initial: T, key: unknown): [T, (next: T) => void] {
  const [state, setState] = useState({ key, value: initial });
  if (!Object.is(state.key, key)) {
    setState({ key, value: initial });
    return [initial, (value) => setState({ key, value })];
  }
  return [state.value, (value) => setState((current) => ({ key: current.key, value }))];
}
