import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { DynamoStorage } from "@openauthjs/openauth/storage/dynamo";
import type { StorageAdapter } from "@openauthjs/openauth/storage/storage";
import { createIssuer, type OidcUpstream } from "#core/identity/issuer";
import { deliverToLocalMailbox, readLocalMailbox, type MailboxMessage } from "#core/mail/index";
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

export interface LocalIdentityProvider {
  /** The issuer (`iss` of its tokens), e.g. http://127.0.0.1:3001. */
  url: string;
  /** Its public keys, preloaded into the API's verifier (aws-jwt-verify fetches JWKS only over https). */
  jwks: { keys: unknown[] };
  /** Every e-mail of the stack (the issuer's codes and the API's invitations), oldest first; also at `<url>/dev/mailbox`. */
  mailbox(): Promise<MailboxMessage[]>;
  /** The mailbox folder, which the stack's functions write to as well (LOCAL_MAIL_DIR). */
  mailDir: string;
  /** Its storage (provisioning writes the development owner's password there). */
  storage: StorageAdapter;
  stop(): Promise<void>;
}

/**
 * Runs the same OpenAuth issuer the stage deploys (core/identity/issuer.ts) on its own port: OpenAuth
 * serves from the root of its origin. Its storage is in DynamoDB Local (identityStorageOptions). Its e-mails land in
 * the stack's one local mailbox (core/mail's folder, where the API's invitations land too), shown at /dev/mailbox
 * (and /dev/mailbox.json) and printed in the log.
 */
export async function startLocalIdentityProvider(options: {
  dynamodbEndpoint: string;
  /** Where the dashboard is (its sign-in redirects back to `<app>/`); every loopback spelling is allowed. */
  appUrl: () => string;
  port?: number;
  host?: string;
  /** Tests only: take the client address from X-Forwarded-For, as the API's local server does. */
  trustForwardedFor?: boolean;
  /** The local mailbox folder (the stack's LOCAL_MAIL_DIR, core/mail). */
  mailDir: string;
  /** An OIDC upstream to offer (tests sign in through local/oidc-fake.ts with it). */
  upstream?: OidcUpstream;
  log?: (line: string) => void;
}): Promise<LocalIdentityProvider> {
  const log = options.log ?? (() => undefined);
  // OpenAuth's DynamoDB storage signs its requests from the environment; DynamoDB Local checks nothing.
  process.env.AWS_ACCESS_KEY_ID ??= localCredentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY ??= localCredentials.secretAccessKey;
  process.env.AWS_REGION ??= localRegion;

  const mailbox = () => readLocalMailbox(options.mailDir);
  const storage = DynamoStorage({ ...identityStorageOptions, endpoint: options.dynamodbEndpoint });
  const app = createIssuer({
    storage,
    sendMail: async (mail) => {
      await deliverToLocalMailbox(options.mailDir, mail);
      log(`mail to ${mail.to}: ${mail.text} (also at ${url}/dev/mailbox)`);
    },
    clients: { [dashboardClientId]: loopbackSpellings(options.appUrl) },
    upstream: options.upstream,
  });

  const server = createServer((request, response) => {
    void (async () => {
      const base = `${url}`;
      const path = request.url ?? "/";
      if (request.method === "GET" && (path === "/dev/mailbox" || path === "/dev/mailbox.json")) {
        const json = path.endsWith(".json");
        const messages = await mailbox();
        response.writeHead(200, {
          "content-type": json ? "application/json" : "text/html; charset=utf-8",
          "cache-control": "no-store",
        });
        response.end(json ? JSON.stringify({ messages }) : mailboxPage(messages));
        return;
      }
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await readAll(request);
      // The issuer's URL is fixed (not taken from Host), so `iss` is the same whatever name the browser used.
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined && !name.startsWith("x-forwarded-"))
          headers.set(name, Array.isArray(value) ? value.join(", ") : value);
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
    mailDir: options.mailDir,
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
  // Links (an invitation's) are clickable, so a local invitation is accepted from here; a sign-in code is set apart.
  const body = (text: string) =>
    escape(text)
      .replace(/https?:\/\/[^\s<]+/g, (link) => `<a href="${link}">${link}</a>`)
      .replace(/\b(code is )(\d{6})\b/, "$1<code>$2</code>");
  const rows = [...messages]
    .reverse()
    .map(
      (m) =>
        `<tr><td>${escape(m.sentAt)}</td><td>${escape(m.to)}</td><td>${escape(m.subject)}</td><td style="white-space:pre-wrap">${body(m.text)}</td></tr>`,
    )
    .join("");
  return `<!doctype html><meta charset="utf-8"><title>Local mailbox</title><body style="font-family:system-ui;margin:2rem">
<h1>Local mailbox</h1><p>Every e-mail the local stack sent: sign-in codes and invitations (newest first; kept in .local/mail).</p>
<table border="1" cellpadding="6" style="border-collapse:collapse"><tr><th>Sent</th><th>To</th><th>Subject</th><th>Message</th></tr>${rows || '<tr><td colspan="4">No e-mail yet.</td></tr>'}</table></body>`;
}
