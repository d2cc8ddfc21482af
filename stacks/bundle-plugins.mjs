// The esbuild plugins SST's build runs for every deployed function (`nodejs.plugins`, stacks/functions.ts). Plain
// JavaScript: SST loads this file in a bare Node process (.sst/platform/functions/nodejs-runtime/plugin.mjs).
import { fileURLToPath } from "node:url";

const environmentCredentials = fileURLToPath(new URL("../core/db/environment-credentials.ts", import.meta.url));

/**
 * The SDK clients' default credential chain, bundled as the role's credentials from the environment (or Lambda's
 * container endpoint) alone: core/db/environment-credentials.ts says why. The path is matched in the callback, not
 * by `filter`: SST's relay tests each callback's filter against a field its messages never have, so a callback runs
 * there only when its filter matches the string "undefined", as this match-all one does.
 */
export const credentialsFromEnvironment = {
  name: "credentials-from-environment",
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) =>
      args.path === "@aws-sdk/credential-provider-node" ? { path: environmentCredentials } : undefined,
    );
  },
};

export default [credentialsFromEnvironment];
