import { useEffect, useState } from "preact/hooks";
import { problemText } from "./api/client";

/**
 * One paged list read through the API's continuation tokens: the page, the token stack for `Pager`, the last
 * problem, and `reload` after a change.
 */
export function usePaged<TPage extends { continuationToken: string | null }>(
  load: (continuationToken: string | null) => Promise<{ data?: TPage; error?: unknown }>,
) {
  const [tokens, setTokens] = useState<(string | null)[]>([null]);
  const [page, setPage] = useState<TPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    void load(tokens[tokens.length - 1] ?? null).then(({ data, error: problem }) => {
      if (data) {
        setPage(data);
        setError(null);
      } else setError(problemText(problem));
    });
  }, [tokens, version]);
  return { page, tokens, setTokens, error, setError, reload: () => setVersion((value) => value + 1) };
}
