// The esbuild plugins SST's build runs for every deployed function (`nodejs.plugins`, stacks/functions.ts). Plain
// JavaScript: SST loads this file in a bare Node process (.sst/platform/functions/nodejs-runtime/plugin.mjs).
import { fileURLToPath } from "node:url";

const environmentCredentials = fileURLToPath(new URL("../core/shared/environment-credentials.ts", import.meta.url));

/**
 * The SDK clients' default credential chain, bundled as the role's credentials from the environment alone
 * (core/shared/environment-credentials.ts says why). The path is matched in the callback, not by `filter`: SST's
 * bridge tests each plugin's filter against the message it relays, not against the import path, so only a filter
 * that matches anything is ever called there.
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
