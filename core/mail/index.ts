import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { environmentNames } from "#stacks/definitions";
import { logger } from "#core/observability/index";
import { newId } from "#core/shared/ids";

/** One e-mail to one recipient, plain text. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/**
 * The mail port: every e-mail the API sends goes through here. The local stack (`LOCAL_MAIL_DIR`, set by
 * `npm start` and the tests) writes each one as a JSON file in that folder, where the local mailbox shows it; a
 * deployed stage sends through SES once the identity issue wires it (docs/decisions.md "Mail port"), until then it
 * only logs that a mail was due. The body is never logged: it carries single-use links.
 */
export async function sendMail(mail: Mail): Promise<void> {
  const folder = process.env[environmentNames.localMailDir];
  if (folder) {
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, `${newId()}.json`), JSON.stringify({ ...mail, sentAt: new Date().toISOString() }, null, 2));
  }
  logger.info("mail", { to: mail.to, subject: mail.subject, delivered: folder ? "local mailbox" : "not configured" });
}
