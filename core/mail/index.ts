import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AwsClient } from "aws4fetch";
import { environmentNames } from "#stacks/definitions";
import { MailUnavailableError } from "#core/errors";
import { logger } from "#core/observability/index";
import { newId } from "#core/shared/ids";

/** One e-mail to one recipient, plain text. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** An e-mail as the local mailbox keeps it. */
export interface MailboxMessage extends Mail {
  sentAt: string;
}

/**
 * The mail port: every e-mail the service sends (the identity provider's sign-in codes, the API's invitations) goes
 * through here. The local stack (`LOCAL_MAIL_DIR`, set by `npm start` and the tests) writes each one into that
 * folder, which the local identity provider shows at `/dev/mailbox`; a deployed stage sends with SES v2 from
 * `IDENTITY_EMAIL_FROM`, a verified identity of its region (docs/identity.md). Deployed, neither the address nor
 * the body is logged: the body carries single-use links and codes.
 */
export async function sendMail(mail: Mail): Promise<void> {
  const folder = process.env[environmentNames.localMailDir];
  if (folder) {
    await deliverToLocalMailbox(folder, mail);
    // Local only, the developer's own mailbox: the whole e-mail is printed, so a link can be followed from the log.
    logger.info("mail", {
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      delivered: "local mailbox (/dev/mailbox of the identity provider)",
    });
    return;
  }
  await sendWithSes(mail);
  logger.info("mail", { subject: mail.subject, delivered: "ses" });
}

/** Writes one e-mail into the local mailbox folder (file names are ULIDs: they sort in sending order). */
export async function deliverToLocalMailbox(folder: string, mail: Mail): Promise<void> {
  await mkdir(folder, { recursive: true });
  const message: MailboxMessage = { ...mail, sentAt: new Date().toISOString() };
  await writeFile(join(folder, `${newId()}.json`), JSON.stringify(message, null, 2));
}

/** The local mailbox, oldest first. */
export async function readLocalMailbox(folder: string): Promise<MailboxMessage[]> {
  const files = (await readdir(folder).catch(() => [] as string[])).filter((file) => file.endsWith(".json")).sort();
  const messages = await Promise.all(
    files.map(async (file) => JSON.parse(await readFile(join(folder, file), "utf8")) as MailboxMessage),
  );
  return messages;
}

/** SES v2 SendEmail, signed with the function's own credentials (its role grants `ses:SendEmail`). */
async function sendWithSes(mail: Mail): Promise<void> {
  const sender = process.env[environmentNames.mailFrom];
  if (!sender)
    throw new MailUnavailableError(
      `${environmentNames.mailFrom} is not set on this stage: it cannot send e-mail (docs/identity.md).`,
    );
  const region = process.env.AWS_REGION;
  const ses = new AwsClient({
    accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? "",
    secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? "",
    sessionToken: process.env.AWS_SESSION_TOKEN,
    region,
    service: "ses",
  });
  // Tests point SES_ENDPOINT at a local fake that checks the exact request; a deployed function never has it.
  const endpoint = process.env[environmentNames.sesEndpoint] ?? `https://email.${region}.amazonaws.com`;
  const response = await ses
    .fetch(`${endpoint}/v2/email/outbound-emails`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        FromEmailAddress: sender,
        Destination: { ToAddresses: [mail.to] },
        Content: { Simple: { Subject: { Data: mail.subject }, Body: { Text: { Data: mail.text } } } },
      }),
    })
    .catch((error: unknown) => {
      throw new MailUnavailableError(
        `SES could not be reached (${error instanceof Error ? error.message : String(error)}).`,
      );
    });
  // Neither the address nor SES's words are logged or answered: only its status, so no log lists who gets mail.
  if (!response.ok) throw new MailUnavailableError(`SES refused to send the e-mail (${response.status}).`);
}
