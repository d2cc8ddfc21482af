import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { DynamoStorage } from "@openauthjs/openauth/storage/dynamo";
import type { StorageAdapter } from "@openauthjs/openauth/storage/storage";
import { createIssuer } from "#core/identity/issuer";
import { dashboardClientId } from "#core/auth/local-tokens";
import { localCredentials, localRegion } from "#local/resources";
import { table } from "#stacks/definitions";

/**
 * Where the local identity provider keeps its state: the service's own table (its keys, `oauth:…`, `email…`,
 * `signing:key`, never collide with the `ORG#…` tenant keys). A deployed stage gives it a table of its own
 * (`sst.aws.Auth`). Not a second local table: DynamoDB Local (shared database) then fails the main table's
 * stream readers with "read past the oldest stream record" once the second table is written.
 */
export const identityStorageOptions = { table: table.name, ttl: table.ttlAttribute } as const;

export interface MailboxMessage {
  to: string;
  subject: string;
  code: string;
  sentAt: string;
}

export interface LocalIdentityProvider {
  /** The issuer (`iss` of its tokens), e.g. http://127.0.0.1:3001. */
  url: string;
  /** Its public keys, preloaded into the API's verifier (aws-jwt-verify fetches JWKS only over https). */
  jwks: { keys: unknown[] };
  /** The e-mails it sent, newest last; also at `<url>/dev/mailbox`. */
  mailbox: MailboxMessage[];
  /** Its storage (provisioning writes the development owner's password there). */
  storage: StorageAdapter;
  stop(): Promise<void>;
}

/**
 * Runs the same OpenAuth issuer the stage deploys (core/identity/issuer.ts) on its own port: OpenAuth
 * serves from the root of its origin. Its storage is in DynamoDB Local (identityStorageOptions); its e-mails land
 * in a local mailbox, readable at /dev/mailbox (and /dev/mailbox.json) and printed in the log.
 */
export async function startLocalIdentityProvider(options: {
  dynamodbEndpoint: string;
  /** Where the dashboard is (its sign-in redirects back to `<app>/`); every loopback spelling is allowed. */
  appUrl: () => string;
  port?: number;
  host?: string;
  /** Tests only: take the client address from X-Forwarded-For, as the API's local server does. */
  trustForwardedFor?: boolean;
  log?: (line: string) => void;
}): Promise<LocalIdentityProvider> {
  const log = options.log ?? (() => undefined);
  // OpenAuth's DynamoDB storage signs its requests from the environment; DynamoDB Local checks nothing.
  process.env.AWS_ACCESS_KEY_ID ??= localCredentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY ??= localCredentials.secretAccessKey;
  process.env.AWS_REGION ??= localRegion;

  const mailbox: MailboxMessage[] = [];
  const storage = DynamoStorage({ ...identityStorageOptions, endpoint: options.dynamodbEndpoint });
  const app = createIssuer({
    storage,
    sendCode: async (email, code) => {
      mailbox.push({ to: email, subject: "Your sign-in code", code, sentAt: new Date().toISOString() });
      log(`mail to ${email}: your sign-in code is ${code} (also at ${url}/dev/mailbox)`);
    },
    clients: { [dashboardClientId]: loopbackSpellings(options.appUrl) },
  });

  const server = createServer((request, response) => {
    void (async () => {
      const base = `${url}`;
      const path = request.url ?? "/";
      if (request.method === "GET" && (path === "/dev/mailbox" || path === "/dev/mailbox.json")) {
        const json = path.endsWith(".json");
        response.writeHead(200, { "content-type": json ? "application/json" : "text/html; charset=utf-8", "cache-control": "no-store" });
        response.end(json ? JSON.stringify({ messages: mailbox }) : mailboxPage(mailbox));
        return;
      }
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await readAll(request);
      // The issuer's URL is fixed (not taken from Host), so `iss` is the same whatever name the browser used.
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined && !name.startsWith("x-forwarded-")) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
      }
      const answer = await app.fetch(new Request(new URL(path, base), { method: request.method, headers, body }), {
        requestContext: { http: { sourceIp: sourceIp(request) } },
      });
      response.statusCode = answer.status;
      answer.headers.forEach((value, name) => {
        if (name !== "set-cookie") response.setHeader(name, value);
      });
      const cookies = answer.headers.getSetCookie();
      if (cookies.length) response.setHeader("set-cookie", cookies);
      response.end(Buffer.from(await answer.arrayBuffer()));
    })().catch((error: unknown) => {
      log(`identity provider error: ${error instanceof Error ? error.stack : String(error)}`);
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
      response.end("The identity provider failed.");
    });
  });

  function sourceIp(request: IncomingMessage): string {
    const forwarded = options.trustForwardedFor ? request.headers["x-forwarded-for"] : undefined;
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
    return first || (request.socket.remoteAddress ?? "127.0.0.1").replace(/^::ffff:/, "");
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 3001, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.address}:${address.port}`;
  // The first request creates the signing key in storage; the API preloads the resulting key set.
  const jwks = (await (await app.fetch(new Request(`${url}/.well-known/jwks.json`), {})).json()) as { keys: unknown[] };
  return {
    url,
    jwks,
    mailbox,
    storage,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The app's URL under each loopback name a developer may type (127.0.0.1, localhost). */
function loopbackSpellings(appUrl: () => string): string[] {
  const own = new URL(`${appUrl()}/`);
  const spellings = [own.toString()];
  for (const host of ["127.0.0.1", "localhost"]) {
    const other = new URL(own);
    other.hostname = host;
    spellings.push(other.toString());
  }
  return [...new Set(spellings)];
}

function readAll(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

function mailboxPage(messages: MailboxMessage[]): string {
  const escape = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const rows = [...messages]
    .reverse()
    .map((m) => `<tr><td>${escape(m.sentAt)}</td><td>${escape(m.to)}</td><td>${escape(m.subject)}</td><td><code>${escape(m.code)}</code></td></tr>`)
    .join("");
  return `<!doctype html><meta charset="utf-8"><title>Local mailbox</title><body style="font-family:system-ui;margin:2rem">
<h1>Local mailbox</h1><p>E-mails the local identity provider sent (kept until the stack stops; newest first).</p>
<table border="1" cellpadding="6" style="border-collapse:collapse"><tr><th>Sent</th><th>To</th><th>Subject</th><th>Code</th></tr>${rows || '<tr><td colspan="4">No e-mail yet.</td></tr>'}</table></body>`;
}
