import { audited } from "#core/http/audited";
import { endpoint } from "#core/http/endpoint";
import { createSource } from "#core/http/operations/sources";
import { Sources } from "#core/sources/index";

export const handler = endpoint(
  createSource,
  audited({ action: "source.created", resourceType: "Source" }, ({ actor, body }) => Sources.create(actor, body)),
);
