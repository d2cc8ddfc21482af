import { useSimulator } from "#core/providers/index";
import { createSimulatorProvider, simulatorAuthToken } from "#core/providers/simulator/adapter";

/**
 * Makes `simulator` a carrier of this process: called by the local stack (`local/handlers.ts`), the tests' workers
 * (`tests/setup/simulator.ts`) and the benches. Deployed functions never call it, so no bundle carries the simulator.
 */
export function installSimulator(): void {
  useSimulator(({ tokenSigningKey, delayScale }) =>
    createSimulatorProvider({ authToken: simulatorAuthToken(tokenSigningKey), delayScale }),
  );
}
