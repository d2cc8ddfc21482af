import { publicCredentials } from "#core/http/credentials";
import { endpointReading } from "#core/http/endpoint-chain";

/**
 * The endpoint of a public operation (carrier and payment callbacks, the contract, the agent card): the same chain as
 * `endpoint`, reading no credential, so its bundle carries no API-key, source-key or JWT lookup. A non-public
 * operation does not compile here.
 */
export const publicEndpoint = endpointReading((_auth: "public", event) => publicCredentials(event));
