import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { answer, startFakeServer, type FakeServer } from "#local/fake-server";

/** Who the fake says signed in, as an upstream's id_token claims them. */
export interface FakeOidcPerson {
  email: string;
  email_verified: boolean;
}

/** An authorize request the fake received: the parameters OpenAuth's OidcProvider sent. */
export type FakeOidcAuthorization = Record<string, string>;

export interface OidcFake extends FakeServer {
  /** The client id the fake issues id_tokens to (`aud`). */
  clientId: string;
}

const escape = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A local OpenID provider standing in for Google or any OIDC upstream (core/identity/issuer.ts `OidcUpstream`):
 * its discovery document, its key set (its own ES256 key) and an authorize endpoint that signs the registered person
 * in at once, answering the form_post page a real provider answers (an auto-submitting form carrying the id_token,
 * with the request's nonce, and the state, to the redirect_uri). `POST /__fake/person` sets who signs in next;
 * `GET /__fake/requests` lists the authorize requests received.
 */
export async function startOidcFake(options: { clientId?: string; port?: number } = {}): Promise<OidcFake> {
  const clientId = options.clientId ?? "fake-oidc-client";
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const publicJwk = { ...(await exportJWK(publicKey)), kid: "fake-oidc", alg: "ES256", use: "sig" };
  let person: FakeOidcPerson | undefined;
  const authorizations: FakeOidcAuthorization[] = [];
  let url = "";

  const server = await startFakeServer({
    port: options.port,
    registerPath: "person",
    register: (raw) => {
      person = JSON.parse(raw) as FakeOidcPerson;
    },
    requests: () => authorizations,
    handle: (request, requestUrl, _raw, response) => {
      if (request.method === "GET" && requestUrl.pathname === "/.well-known/openid-configuration")
        return answer(response, 200, {
          issuer: url,
          authorization_endpoint: `${url}/authorize`,
          jwks_uri: `${url}/jwks`,
          response_types_supported: ["id_token"],
          response_modes_supported: ["form_post"],
          subject_types_supported: ["public"],
          id_token_signing_alg_values_supported: ["ES256"],
        });
      if (request.method === "GET" && requestUrl.pathname === "/jwks")
        return answer(response, 200, { keys: [publicJwk] });
      if (request.method === "GET" && requestUrl.pathname === "/authorize") {
        const parameters = Object.fromEntries(requestUrl.searchParams);
        authorizations.push(parameters);
        const redirect = parameters.redirect_uri;
        if (parameters.client_id !== clientId || !redirect || !person) return answer(response, 400, "unknown client");
        void new SignJWT({ email: person.email, email_verified: person.email_verified, nonce: parameters.nonce })
          .setProtectedHeader({ alg: "ES256", kid: publicJwk.kid })
          .setIssuer(url)
          .setAudience(clientId)
          .setSubject(`fake-${person.email}`)
          .setIssuedAt()
          .setExpirationTime("5m")
          .sign(privateKey)
          .then((idToken) => {
            const fields = { id_token: idToken, state: parameters.state ?? "" };
            const inputs = Object.entries(fields)
              .map(([name, value]) => `<input type="hidden" name="${name}" value="${escape(value)}">`)
              .join("");
            response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
            response.end(
              `<!doctype html><body onload="document.forms[0].submit()"><form method="post" action="${escape(redirect)}">${inputs}</form></body>`,
            );
          })
          .catch((error: unknown) => answer(response, 500, { error: String(error) }));
        return;
      }
      answer(response, 404, {});
    },
  });
  url = server.url;
  return { ...server, clientId };
}
