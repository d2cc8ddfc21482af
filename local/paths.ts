import { fileURLToPath } from "node:url";

/** The repository root: handler specs (`functions/x/y.handler`) and `.local/` are relative to it. */
export const projectRoot = fileURLToPath(new URL("..", import.meta.url));
