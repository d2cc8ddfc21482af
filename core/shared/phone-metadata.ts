import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { phoneMetadataFile } from "#stacks/packaged-files";
import { isPossiblePhoneNumber, type MetadataJson } from "libphonenumber-js/core";

/**
 * libphonenumber-js's "min" metadata (every country's number pattern and lengths), read from a file on the first
 * phone parse of an instance instead of bundled: as a module it was ~80 KB of object literal compiled at every cold
 * start of the ~60 functions that declare a phone field, most of which never parse one. The same file, so the same
 * answers: `copyFiles` (stacks/functions.ts, stacks/packaged-files.ts) puts the package's `metadata.min.json` beside every handler; locally
 * (tests, the local stack) it is read from node_modules.
 */

let metadata: MetadataJson | undefined;

export function phoneMetadata(): MetadataJson {
  if (metadata) return metadata;
  const taskRoot = process.env.LAMBDA_TASK_ROOT;
  const path = taskRoot
    ? join(taskRoot, phoneMetadataFile.to)
    : createRequire(import.meta.url).resolve(phoneMetadataFile.from.replace(/^node_modules\//, ""));
  metadata = JSON.parse(readFileSync(path, "utf8")) as MetadataJson;
  return metadata;
}

/**
 * True when a number has a possible length for its country (libphonenumber-js's `isPossiblePhoneNumber`, no validity
 * check). Here rather than in phone.ts, whose area-code tables a schema that only checks E.164 does not need.
 */
export function isPossiblePhone(text: string): boolean {
  return isPossiblePhoneNumber(text, phoneMetadata());
}
