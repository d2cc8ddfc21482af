import * as v from "valibot";
import { maxChars } from "#core/shared/validation";

/** Body of `POST /conversations/{id}/notes` and `POST /leads/{id}/notes`: an internal note, never sent to anyone. */
export const AddNoteSchema = v.strictObject({
  body: v.pipe(v.string(), v.trim(), v.minLength(1, "A note needs a text."), maxChars(2000)),
});
export type AddNote = v.InferOutput<typeof AddNoteSchema>;
