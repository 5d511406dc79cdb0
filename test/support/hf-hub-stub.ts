/**
 * Stands in for the HuggingFace Hub (https://huggingface.co, unreachable from tests). Answers the routes the
 * preflight and a download use, on the wire as the Hub does (as huggingface_hub's `hf_raise_for_status`
 * and `HfApi.auth_check` read them):
 * - `GET /api/{models|datasets}/{repo}/revision/{rev}`: repo info, 200 with `"gated": false | "auto" |
 *   "manual"`. A gated repo's metadata is public; only its files are refused.
 * - `GET /api/{models|datasets}/{repo}/auth-check` and `HEAD|GET /{repo}/resolve/{rev}/{file}` (datasets:
 *   `/datasets/{repo}/resolve/…`): file access. A gated repo answers `X-Error-Code: GatedRepo`, 401 without
 *   a token and 403 with a token that was not granted; a granted token gets 200.
 * - A private repo the token cannot see, and a missing repo, answer alike: 401 without a token, 404 with
 *   one, `X-Error-Code: RepoNotFound`. A missing revision is 404 `RevisionNotFound`, a missing file 404
 *   `EntryNotFound`. The Hub's words go in `X-Error-Message` and `{"error": …}`.
 * - A bearer token the Hub does not know (only if `validTokens` is given) is 401 with `X-Error-Message:
 *   Invalid credentials in Authorization header`, on every route.
 * Not modelled: redirects (renamed repos, LFS files on the CDN), rate limits, spaces.
 */
export interface HubRepo {
  kind: "model" | "dataset";
  id: string;
  /** Branches, tags or commits that exist; default `["main"]`. */
  revisions?: string[];
  /** Gated: metadata stays public, files need a granted token. `true` is "manual" (approved by the authors). */
  gated?: boolean | "auto" | "manual";
  /** Private: invisible (as if missing) to every token not granted. */
  private?: boolean;
  /** Tokens whose accounts may read the files: granted access to a gated repo, or members of a private one. */
  grantedTokens?: string[];
  /** Files the resolve route knows; default `[".gitattributes", "README.md"]`. */
  files?: string[];
}

export interface HubStubOptions {
  /** Tokens the Hub knows; any other bearer token is refused as invalid. Default: every token is known. */
  validTokens?: string[];
}

export interface HubStub {
  fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
  /** Paths asked for, in order. */
  requests: string[];
  /** The hub answers 503 to everything. */
  down: boolean;
  /** No connection at all: fetch rejects with a TypeError, as on a refused connection or failed DNS lookup. */
  unreachable: boolean;
}

const INVALID_TOKEN = "Invalid credentials in Authorization header";

function hubError(status: number, message: string, code?: string): Response {
  const headers: Record<string, string> = { "x-error-message": message };
  if (code) headers["x-error-code"] = code;
  return Response.json({ error: message }, { status, headers });
}

export function createHubStub(repos: HubRepo[], opts: HubStubOptions = {}): HubStub {
  const stub: HubStub = {
    requests: [],
    down: false,
    unreachable: false,
    async fetch(input, init) {
      const req = new Request(input, init);
      const url = new URL(req.url);
      stub.requests.push(url.pathname);
      if (stub.unreachable) throw new TypeError("fetch failed");
      if (stub.down) return new Response("upstream unavailable", { status: 503 });

      const route = parseRoute(url.pathname, req.method);
      if (!route) return hubError(404, "Not Found");

      const auth = req.headers.get("authorization");
      const token = auth?.startsWith("Bearer ") ? auth.slice("Bearer ".length) : undefined;
      if (token !== undefined && opts.validTokens && !opts.validTokens.includes(token)) {
        return hubError(401, INVALID_TOKEN);
      }

      const repo = repos.find((r) => r.kind === route.kind && r.id === route.id);
      const granted = token !== undefined && (repo?.grantedTokens ?? []).includes(token);
      if (!repo || (repo.private && !granted)) {
        // Private and missing look the same, so a repo's existence does not leak.
        return token === undefined
          ? hubError(401, "Invalid username or password.", "RepoNotFound")
          : hubError(404, "Repository not found", "RepoNotFound");
      }
      if (route.rev !== undefined && !(repo.revisions ?? ["main"]).includes(route.rev)) {
        return hubError(404, `Invalid rev id: ${route.rev}`, "RevisionNotFound");
      }
      const gated = repo.gated === true ? "manual" : (repo.gated ?? false);
      if (route.what === "info") {
        return Response.json({
          _id: repo.id,
          id: repo.id,
          sha: "0".repeat(40),
          private: Boolean(repo.private),
          gated,
          disabled: false,
          siblings: (repo.files ?? [".gitattributes", "README.md"]).map((rfilename) => ({ rfilename })),
        });
      }

      // File access: auth-check and resolve.
      if (gated && !granted) {
        const page = `${url.origin}${route.kind === "dataset" ? "/datasets" : ""}/${repo.id}`;
        return token === undefined
          ? hubError(
              401,
              `Access to ${route.kind} ${repo.id} is restricted. You must have access to it and be authenticated to access it. Please log in.`,
              "GatedRepo",
            )
          : hubError(
              403,
              `Access to ${route.kind} ${repo.id} is restricted and you are not in the authorized list. Visit ${page} to ask for access.`,
              "GatedRepo",
            );
      }
      if (route.what === "auth-check") return Response.json({});
      if (!(repo.files ?? [".gitattributes", "README.md"]).includes(route.file ?? "")) {
        return hubError(404, "Entry not found", "EntryNotFound");
      }
      const headers = { "x-repo-commit": "0".repeat(40), etag: `"${route.file}"`, "content-length": "0" };
      return new Response(req.method === "HEAD" ? null : "", { status: 200, headers });
    },
  };
  return stub;
}

interface Route {
  kind: "model" | "dataset";
  id: string;
  what: "info" | "auth-check" | "resolve";
  rev?: string;
  file?: string;
}

const REPO = "([^/]+/[^/]+|[^/]+)";

function parseRoute(path: string, method: string): Route | null {
  const dec = decodeURIComponent;
  const kindOf = (plural: string): Route["kind"] => (plural === "models" ? "model" : "dataset");
  let m = new RegExp(`^/api/(models|datasets)/${REPO}/revision/([^/]+)$`).exec(path);
  if (m && method === "GET") return { kind: kindOf(m[1]!), id: dec(m[2]!), what: "info", rev: dec(m[3]!) };
  m = new RegExp(`^/api/(models|datasets)/${REPO}/auth-check$`).exec(path);
  if (m && method === "GET") return { kind: kindOf(m[1]!), id: dec(m[2]!), what: "auth-check" };
  m = new RegExp(`^(/datasets)?/${REPO}/resolve/([^/]+)/(.+)$`).exec(path);
  if (m && (method === "GET" || method === "HEAD")) {
    const kind = m[1] ? "dataset" : "model";
    return { kind, id: dec(m[2]!), what: "resolve", rev: dec(m[3]!), file: dec(m[4]!) };
  }
  return null;
}
