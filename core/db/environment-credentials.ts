import { fromEnv } from "@aws-sdk/credential-provider-env";
import { fromHttp } from "@aws-sdk/credential-provider-http";

/**
 * What a deployed function's bundle has in place of `@aws-sdk/credential-provider-node`, the SDK's default credential
 * chain (stacks/bundle-plugins.mjs): the SDK's clients import it as `defaultProvider`, so this module exports that
 * name. A Lambda function has its role's credentials in its environment (`AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), the first source the chain tries; the few Lambda variants that hand
 * them out from a container endpoint instead (SnapStart's, named by `AWS_CONTAINER_CREDENTIALS_FULL_URI` or
 * `…_RELATIVE_URI`) are read the way the chain reads that endpoint (`fromHttp`). The rest of the chain (SSO, shared
 * files, web identity, process, EC2 metadata, and the STS and SSO clients they carry) never runs in Lambda, yet
 * bundled as ESM it was compiled on every cold start (issue 27: about 140 KB, docs/decisions.md, eleventh pass).
 * Unlike the chain, an `AWS_PROFILE` in a function's environment does not turn the environment's keys aside: a
 * deployed function has no profile files to read. Code not bundled by SST (tests, `npm start`, `npm run admin`) keeps
 * the whole chain.
 */
export function defaultProvider(init: Parameters<typeof fromEnv>[0] & Parameters<typeof fromHttp>[0] = {}) {
  const environment = fromEnv(init);
  // Made on first use: `fromHttp` refuses at once when no endpoint is named, which is the usual case.
  let container: ReturnType<typeof fromHttp> | undefined;
  return async () => {
    try {
      return await environment();
    } catch (error) {
      const endpoint =
        process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI || process.env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI;
      if (!endpoint) throw error;
      container ??= fromHttp(init);
      return container();
    }
  };
}
