import { fromEnv } from "@aws-sdk/credential-provider-env";

/**
 * What a deployed function's bundle has in place of `@aws-sdk/credential-provider-node` (stacks/bundle-plugins.mjs):
 * the credentials of the function's role, which Lambda puts in its environment (`AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`). That is the first source the SDK's default chain tries, and in Lambda
 * it is always there, so the rest of the chain (SSO, web identity, shared files, process, the metadata services, and
 * the STS and SSO clients they carry) never runs there; bundled as ESM it was still compiled on every cold start
 * (issue 27: about 140 KB, see docs/decisions.md). The SDK's clients import the chain as `defaultProvider`, so this
 * module exports that name. Anything run outside a deployed function (tests, `npm start`, `npm run admin`) is not
 * bundled by SST and keeps the full chain.
 */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
