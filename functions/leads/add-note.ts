import { endpoint } from "#core/http/endpoint";
import { addLeadNote } from "#core/http/operations/leads";
import * as LeadNotes from "#core/leads/notes";

export const handler = endpoint(addLeadNote, ({ actor, params, body }) => LeadNotes.add(actor, params.id, body));
