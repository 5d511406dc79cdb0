/**
 * HuggingFace preflight: before a job is queued, check that the model and dataset it names exist at the
 * requested revision and that the submitter's token may download their files. Speaks the Hub's HTTP API;
 * the endpoint is configurable so tests use a stub (test/support/hf-hub-stub.ts).
 *
 * The Hub's answers this relies on (as huggingface_hub's `hf_raise_for_status` and `HfApi.auth_check` read
 * them):
 * - A gated repo's metadata is public: `GET /api/{models|datasets}/{repo}/revision/{rev}` answers 200 with
 *   `"gated": "auto" | "manual"`, and only the files are refused. So a gated repo takes a second call,
 *   `GET /api/{models|datasets}/{repo}/auth-check`, which answers for this token: 200, or `X-Error-Code:
 *   GatedRepo` with 401 (no token) or 403 (a token not granted access).
 * - A private repo the token cannot see and a missing repo get the same answer, so nobody learns that a
 *   private repo exists: 401 without a token, 404 with one, `X-Error-Code: RepoNotFound`.
 * - A missing revision of a visible repo is 404 `X-Error-Code: RevisionNotFound`.
 * - A token the Hub does not know is 401 with `X-Error-Message: Invalid credentials in Authorization header`
 *   on every repo, public ones included.
 */
import { z } from "zod";
import { AppError } from "../errors.js";

export type RepoKind = "model" | "dataset";

/**
 * What the preflight learned. `checked: false` only when the hub could not answer and the caller chose to
 * admit anyway (`onUnavailable: "open"`); `reason` says why, for the caller to log or show.
 */
export type HubVerdict = { checked: true; gated: boolean } | { checked: false; reason: string };

export interface HubCheckOptions {
  /** The submitter's HuggingFace token. Sent to the hub endpoint only, never across a redirect elsewhere. */
  token?: string | undefined;
  /** When the hub is unreachable, slow, rate-limiting or failing: refuse (default) or admit unchecked. */
  onUnavailable?: "closed" | "open";
}

export interface HubClient {
  check(
    kind: RepoKind,
    repo: string,
    revision: string | undefined,
    opts: HubCheckOptions,
  ): Promise<HubVerdict>;
}

const TIMEOUT_MS = 10_000;
/** A renamed repo answers with a same-origin redirect to its new name; more hops than this is a loop. */
const MAX_REDIRECTS = 3;
/** The `X-Error-Message` the Hub sends for a bearer token it does not know (huggingface_hub matches it too). */
const INVALID_TOKEN = "Invalid credentials in Authorization header";

/** The part of the repo-info answer the preflight reads; the Hub sends `false`, "auto" or "manual". */
const RepoInfo = z.object({ gated: z.union([z.boolean(), z.string()]).nullish() });

export function httpHubClient(endpoint: string, fetcher: typeof fetch = fetch): HubClient {
  const base = endpoint.replace(/\/+$/, "");
  const origin = new URL(base).origin;

  return {
    async check(kind, repo, revision, opts) {
      const rev = revision ?? "main";
      const token = opts.token || undefined;
      const what = `${kind} ${repo}@${rev}`;
      const path = `${base}/api/${kind}s/${repo.split("/").map(encodeURIComponent).join("/")}`;
      const ctx: Ctx = { kind, repo, rev, what, token, accessUrl: accessUrl(base, kind, repo) };
      // One deadline for the whole check, however many calls a gated repo takes.
      const signal = AbortSignal.timeout(TIMEOUT_MS);

      try {
        const meta = await call(`${path}/revision/${encodeURIComponent(rev)}`, signal, ctx);
        if (!meta.ok) throw await refusal(meta, ctx);
        const gated = await readGated(meta, ctx);
        if (!gated) return { checked: true, gated: false };
        // Every gated repo (auto or manual) needs an authenticated account; without a token the answer is
        // known, so the hub is not asked.
        if (!token) throw tokenRequired(ctx, "missing");
        const auth = await call(`${path}/auth-check`, signal, ctx);
        if (!auth.ok) throw await refusal(auth, ctx);
        await drain(auth);
        return { checked: true, gated: true };
      } catch (err) {
        if (err instanceof AppError && err.code === "HF_UNAVAILABLE" && opts.onUnavailable === "open") {
          return { checked: false, reason: err.message };
        }
        throw err;
      }
    },
  };

  /**
   * One GET to the hub. Redirects are followed by hand, and only within the hub's origin, so the token
   * never travels to another host whatever the runtime's fetch does with credentials on redirect.
   */
  async function call(url: string, signal: AbortSignal, ctx: Ctx) {
    const { token } = ctx;
    for (let hops = 0; ; hops++) {
      let res: Response;
      try {
        res = await fetcher(url, {
          headers: { accept: "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
          redirect: "manual",
          signal,
        });
      } catch (err) {
        const why = timedOut(err)
          ? `did not answer within ${TIMEOUT_MS / 1000} s`
          : `could not be reached (${err instanceof Error ? err.message : String(err)})`;
        throw unavailable(ctx, `the hub at ${base} ${why}`);
      }
      if (res.status < 300 || res.status >= 400) return res;
      const location = res.headers.get("location");
      await drain(res);
      const next = location ? resolveUrl(location, url) : null;
      if (!next || next.origin !== origin || hops === MAX_REDIRECTS) {
        throw unavailable(ctx, `the hub redirected to ${location ?? "nowhere"}, which is not followed`);
      }
      url = next.href;
    }
  }
}

interface Ctx {
  kind: RepoKind;
  repo: string;
  rev: string;
  what: string;
  token: string | undefined;
  accessUrl: string;
}

/** The repo's page, where a signed-in user asks for access to a gated repo. */
function accessUrl(base: string, kind: RepoKind, repo: string): string {
  return kind === "dataset" ? `${base}/datasets/${repo}` : `${base}/${repo}`;
}

async function readGated(res: Response, ctx: Ctx): Promise<boolean> {
  let body: unknown;
  try {
    body = await res.json();
  } catch (err) {
    throw unavailable(
      ctx,
      timedOut(err) ? "the hub's answer did not arrive in time" : "the hub's answer was not JSON",
    );
  }
  const info = RepoInfo.safeParse(body);
  if (!info.success) throw unavailable(ctx, "the hub's answer was not repo info");
  return Boolean(info.data.gated);
}

/** A refusal by its `X-Error-Code`, then by status, in the order huggingface_hub reads them. */
async function refusal(res: Response, ctx: Ctx): Promise<AppError> {
  await drain(res);
  const code = res.headers.get("x-error-code");
  const hubSaid = hubMessage(res);
  const { kind, repo, rev } = ctx;
  if (code === "RevisionNotFound") {
    return new AppError(
      "HF_REVISION_NOT_FOUND",
      `HuggingFace ${kind} ${repo} has no revision "${rev}" (no such branch, tag or commit)`,
      { kind, repo, revision: rev },
    );
  }
  if (code === "GatedRepo") {
    if (!ctx.token) return tokenRequired(ctx, "missing");
    return new AppError(
      "HF_ACCESS_DENIED",
      `HuggingFace ${kind} ${repo} is gated and your HF_TOKEN has not been granted access; request access at ${ctx.accessUrl}${hubSaid}`,
      { kind, repo, revision: rev, access_url: ctx.accessUrl },
    );
  }
  if (res.status === 401 && ctx.token && res.headers.get("x-error-message") === INVALID_TOKEN) {
    return tokenRequired(ctx, "rejected");
  }
  if (code === "RepoNotFound" || res.status === 401 || res.status === 404) {
    const why = ctx.token
      ? "your HF_TOKEN cannot see it"
      : "no HF_TOKEN was given (set yours with `sf secret set HF_TOKEN`)";
    return new AppError(
      "HF_NOT_FOUND",
      `HuggingFace ${kind} ${repo} does not exist, or it is private and ${why}`,
      { kind, repo, revision: rev },
    );
  }
  if (res.status === 403) {
    return new AppError(
      "HF_ACCESS_DENIED",
      `the hub refused access to HuggingFace ${kind} ${repo}${hubSaid}; check that your HF_TOKEN may read it`,
      { kind, repo, revision: rev, access_url: ctx.accessUrl },
    );
  }
  // 429, 5xx and anything unforeseen: the hub did not give a verdict on the repo.
  return unavailable(ctx, `the hub answered HTTP ${res.status}${hubSaid}`);
}

function tokenRequired(ctx: Ctx, token: "missing" | "rejected"): AppError {
  const { kind, repo, rev } = ctx;
  const message =
    token === "missing"
      ? `HuggingFace ${kind} ${repo} is gated; set your HuggingFace token with \`sf secret set HF_TOKEN\` (its account must have been granted access at ${ctx.accessUrl})`
      : `the hub rejected your HF_TOKEN (unknown or expired) while checking ${ctx.what}; set a valid one with \`sf secret set HF_TOKEN\``;
  return new AppError("HF_TOKEN_REQUIRED", message, {
    kind,
    repo,
    revision: rev,
    token,
    access_url: ctx.accessUrl,
  });
}

function unavailable(ctx: Ctx, why: string): AppError {
  return new AppError("HF_UNAVAILABLE", `HuggingFace preflight for ${ctx.what} failed: ${why}; try again`, {
    kind: ctx.kind,
    repo: ctx.repo,
    revision: ctx.rev,
  });
}

/** The Hub's own words (`X-Error-Message`), bounded, for messages where they add a fact (pending review). */
function hubMessage(res: Response): string {
  const said = res.headers.get("x-error-message")?.trim();
  return said ? ` (the hub said: ${said.slice(0, 200)})` : "";
}

function resolveUrl(location: string, from: string): URL | null {
  try {
    return new URL(location, from);
  } catch {
    return null;
  }
}

function timedOut(err: unknown): boolean {
  return err instanceof Error && err.name === "TimeoutError";
}

/** Release the connection: only the status, headers and repo info are read. */
async function drain(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => {});
}
