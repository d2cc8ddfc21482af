import { environmentNames } from "#stacks/definitions";

/** Carrier settings read from the environment (lazily, so the local runner and tests can set them first). */
export const providerConfig = {
  /** The deployment's default carrier: `simulator` (default: local stack and tests), `twilio` or `telnyx`. */
  get provider(): "simulator" | "twilio" | "telnyx" {
    const chosen = process.env[environmentNames.provider];
    return chosen === "twilio" || chosen === "telnyx" ? chosen : "simulator";
  },
  /** Multiplies the simulator's callback delays (tests: 0.2; 1 = the documented delays). */
  get simulatorDelayScale(): number {
    const value = Number(process.env[environmentNames.simulatorDelayScale] ?? "1");
    return Number.isFinite(value) && value >= 0 ? value : 1;
  },
};
