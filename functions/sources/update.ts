import { audited } from "#core/http/audited";
import { endpoint } from "#core/http/endpoint";
import { updateSource } from "#core/http/operations/sources";
import { Sources } from "#core/sources/index";

export const handler = endpoint(
  updateSource,
  audited(
    {
      action: "source.updated",
      resourceType: "Source",
      before: ({ actor, params }) => Sources.fromId(actor, params.id),
    },
    ({ actor, params, body }) => Sources.update(actor, params.id, body),
  ),
);
