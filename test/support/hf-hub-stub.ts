/**
 * Stands in for the HuggingFace Hub (unreachable here). Speaks the part of its HTTP API the preflight
 * uses: `GET /api/{models|datasets}/{org}/{name}/revision/{rev}` → 200 with repo info, 404 with
 * `{"error": "Repository not found"}` (as the Hub answers an authenticated caller), 403 for a gated
 * repo without access, 401 without a token for a private repo.
 */
export interface HubRepo {
  kind: "model" | "dataset";
  id: string;
  revisions?: string[];
  gated?: boolean;
  private?: boolean;
}

export interface HubStub {
  fetch(req: Request): Promise<Response>;
  requests: string[];
  down: boolean;
}

export function createHubStub(repos: HubRepo[], acceptedToken = "hf_test_token"): HubStub {
  const stub: HubStub = {
    requests: [],
    down: false,
    async fetch(req: Request): Promise<Response> {
      const url = new URL(req.url);
      stub.requests.push(url.pathname);
      if (stub.down) return new Response("upstream unavailable", { status: 503 });
      const m = /^\/api\/(models|datasets)\/([^/]+\/[^/]+|[^/]+)\/revision\/([^/]+)$/.exec(url.pathname);
      if (!m || req.method !== "GET") return Response.json({ error: "Not Found" }, { status: 404 });
      const kind = m[1] === "models" ? "model" : "dataset";
      const id = decodeURIComponent(m[2]!);
      const rev = decodeURIComponent(m[3]!);
      const repo = repos.find((r) => r.kind === kind && r.id === id);
      const auth = req.headers.get("authorization");
      if (!repo)
        return Response.json(
          { error: "Repository not found" },
          { status: 404, headers: { "x-error-code": "RepoNotFound" } },
        );
      if (repo.private && auth !== `Bearer ${acceptedToken}`) {
        return Response.json({ error: "Invalid username or password." }, { status: 401 });
      }
      if (repo.gated && auth !== `Bearer ${acceptedToken}`) {
        return Response.json(
          { error: "Access to this repo is restricted." },
          { status: 403, headers: { "x-error-code": "GatedRepo" } },
        );
      }
      if (!(repo.revisions ?? ["main"]).includes(rev)) {
        return Response.json(
          { error: `Invalid rev id: ${rev}` },
          { status: 404, headers: { "x-error-code": "RevisionNotFound" } },
        );
      }
      return Response.json({
        _id: id,
        id,
        sha: "0".repeat(40),
        private: Boolean(repo.private),
        gated: repo.gated ? "manual" : false,
      });
    },
  };
  return stub;
}
