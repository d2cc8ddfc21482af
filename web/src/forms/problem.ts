/** A failed call's problem+json as a form shows it: the sentence for the whole form, and field errors by JSON Pointer. */
export interface FormProblem {
  detail: string;
  errors: { pointer: string; detail: string }[];
}

export function formProblem(error: unknown): FormProblem {
  const problem = error as
    { detail?: string; title?: string; errors?: { pointer: string; detail: string }[] } | undefined;
  return { detail: problem?.detail ?? problem?.title ?? "The request failed.", errors: problem?.errors ?? [] };
}

/** The errors at `pointer` or inside it (`/actions/0/settings/mediaUrls` also owns `/…/mediaUrls/1`). */
export function errorsAt(problem: FormProblem | null, pointer: string): string[] {
  if (!problem) return [];
  return problem.errors
    .filter((error) => error.pointer === pointer || error.pointer.startsWith(`${pointer}/`))
    .map((error) => error.detail);
}

/** The errors exactly at one of `pointers` (a node's own problems, not those of its fields). */
export function errorsExactly(problem: FormProblem | null, pointers: string[]): string[] {
  if (!problem) return [];
  return problem.errors.filter((error) => pointers.includes(error.pointer)).map((error) => error.detail);
}

/** An id for the element showing a pointer's error, for `aria-describedby`. */
export function errorId(pointer: string): string {
  return `error${pointer.replaceAll(/[^A-Za-z0-9]+/g, "-")}`;
}
