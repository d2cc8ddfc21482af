import { installSimulator } from "#core/providers/simulator/install";

// Each test worker runs core in its own process: the carrier simulator answers there as on the local stack.
installSimulator();
