import { resolveCredentials } from "#core/http/credentials";
import { endpointReading } from "#core/http/endpoint-chain";

/** The endpoint of any operation: reads whichever credential its auth mode accepts (core/http/endpoint-chain). */
export const endpoint = endpointReading(resolveCredentials);
