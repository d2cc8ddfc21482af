import type { Request } from "@middy/core";
import httpJsonBodyParser from "@middy/http-json-body-parser";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import * as v from "valibot";
import { ValidationError } from "#core/errors";
import type { AnySchema, Operation } from "#core/http/operation";
import { PayloadTooLargeError, UnsupportedMediaTypeError } from "#core/http/problem";
import { toFieldErrors, wellFormedText } from "#core/shared/validation";

/** JSON bodies above this size are refused with 413 before parsing. */
export const maxBodyBytes = 1024 * 1024;

/** Deepest nesting of arrays and objects a JSON body may have: far above any schema's, far below what costs CPU to walk. */
export const maxJsonDepth = 32;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

const jsonMediaType = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i;
const jsonBodyParser = httpJsonBodyParser();

/** The validated JSON body of a request: size and media type checked before parsing (413, 415), then the operation's schema (400). */
export async function parseBody(
  operation: Pick<Operation, "body" | "bodyRequired">,
  request: Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>,
): Promise<unknown> {
  const event = request.event;
  const raw = event.body;
  const required = operation.bodyRequired ?? true;
  if (raw === undefined || raw === null || raw === "") {
    if (required)
      throw new ValidationError("A JSON request body is required.", [{ pointer: "", detail: "The body is missing." }]);
    return validate(operation.body!, undefined, "");
  }
  const size = event.isBase64Encoded ? Math.floor((raw.length * 3) / 4) : Buffer.byteLength(raw);
  if (size > maxBodyBytes) throw new PayloadTooLargeError(`The request body exceeds ${maxBodyBytes} bytes.`);
  const contentType = event.headers?.["content-type"] ?? "";
  if (!jsonMediaType.test(contentType)) {
    throw new UnsupportedMediaTypeError("The request body must be application/json (or application/*+json).");
  }
  if (event.isBase64Encoded) {
    // Bytes the gateway could not pass as text: JSON must be UTF-8, and a byte that is not is refused, not read as U+FFFD.
    try {
      event.body = strictUtf8.decode(Buffer.from(raw, "base64"));
      event.isBase64Encoded = false;
    } catch {
      throw new ValidationError("The request body is not valid UTF-8.", [
        { pointer: "", detail: "Send JSON encoded as UTF-8." },
      ]);
    }
  }
  if (jsonNestingDepth(event.body!) > maxJsonDepth) {
    throw new ValidationError("The request body is nested too deeply.", [
      { pointer: "", detail: `At most ${maxJsonDepth} levels of arrays and objects.` },
    ]);
  }
  try {
    await jsonBodyParser.before!(request as never);
  } catch {
    throw new ValidationError("The request body is not valid JSON.", [{ pointer: "", detail: "Malformed JSON." }]);
  }
  return validate(operation.body!, event.body as unknown, "");
}

/** The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count), in one pass without parsing. */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index++; // backslash: the escaped character is skipped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (code === 0x5d || code === 0x7d) depth--;
  }
  return deepest;
}

/** Runs a schema; failures become a 400 listing every offending field by JSON Pointer. */
export function validate<TSchema extends AnySchema>(
  schema: TSchema,
  value: unknown,
  pointerPrefix: string,
): v.InferOutput<TSchema> {
  const text = v.safeParse(wellFormedText, value);
  const result = text.success ? v.safeParse(schema, value) : text;
  if (result.success) return result.output as v.InferOutput<TSchema>;
  const errors = toFieldErrors(result.issues).map((error) => ({
    ...error,
    pointer: `${pointerPrefix}${error.pointer}`,
  }));
  throw new ValidationError("The request is not valid; see errors for each field.", errors);
}
