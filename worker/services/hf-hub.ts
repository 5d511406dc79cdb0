/**
 * HuggingFace preflight: before a job is queued, check that the model and dataset it names exist at the
 * requested revision and that the server's token may read them. Speaks the Hub's HTTP API
 * (`GET /api/{models|datasets}/{repo}/revision/{rev}`); the endpoint is configurable so tests use a stub.
 */
import { AppError } from "../errors.js";

export type RepoKind = "model" | "dataset";

export interface HubClient {
  check(kind: RepoKind, repo: string, revision: string | undefined): Promise<void>;
}

export function httpHubClient(
  endpoint: string,
  token: string | undefined,
  fetcher: typeof fetch = fetch,
): HubClient {
  const base = endpoint.replace(/\/+$/, "");
  return {
    async check(kind, repo, revision) {
      const rev = revision ?? "main";
      const url = `${base}/api/${kind}s/${repo.split("/").map(encodeURIComponent).join("/")}/revision/${encodeURIComponent(rev)}`;
      let res: Response;
      try {
        res = await fetcher(url, {
          headers: { accept: "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
          signal: AbortSignal.timeout(10_000),
        });
      } catch (err) {
        throw new AppError(
          "HF_UNAVAILABLE",
          `HuggingFace preflight could not reach the hub: ${String(err)}; try again`,
        );
      }
      // Drain the body so the connection can be reused; only the status matters here.
      await res.body?.cancel();
      if (res.ok) return;
      const what = `${kind} ${repo}@${rev}`;
      if (res.status === 404) {
        throw new AppError(
          "HF_NOT_FOUND",
          `HuggingFace ${what} does not exist (or the revision is unknown)`,
          { kind, repo, revision: rev },
        );
      }
      if (res.status === 401 || res.status === 403) {
        throw new AppError(
          "HF_ACCESS_DENIED",
          `HuggingFace ${what} is private or gated and the server's token cannot read it; request access or ask an admin`,
          { kind, repo, revision: rev, status: res.status },
        );
      }
      throw new AppError(
        "HF_UNAVAILABLE",
        `HuggingFace preflight for ${what} failed with HTTP ${res.status}; try again`,
      );
    },
  };
}
