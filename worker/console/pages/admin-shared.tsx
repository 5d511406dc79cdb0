/** @jsxImportSource hono/jsx */
/** What the admin pages share: their guard, form reading, refusals and frame. */
import type { MiddlewareHandler } from "hono";
import type { Child, FC } from "hono/jsx";
import { ApiFailure, type ConsoleCtx, type ConsoleEnv } from "../api.js";
import { Layout } from "../layout.js";

export interface NodeRow {
  id: string;
  name: string;
  series: string;
  status: string;
  agent: boolean;
  cordoned: boolean;
  revoked: boolean;
  gpus: Array<{ job_id: string | null }>;
}

/** A refusal to show on a re-rendered form. */
export type Refusal = { code: string; message: string } | null;

/** Only admins see these pages; to anyone else they do not exist (the same 404 page as a missing one). */
export const adminOnly: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  if (c.get("session")?.principal.role !== "admin") throw new ApiFailure(404, "NOT_FOUND", "no such page");
  return next();
};

/** Runs an API call for a form; an ApiFailure other than 403/404 comes back as the refusal to show. */
export async function attempt<T>(
  fn: () => Promise<T>,
): Promise<{ ok: T; refused: null } | { ok: null; refused: NonNullable<Refusal> }> {
  try {
    return { ok: await fn(), refused: null };
  } catch (err) {
    if (err instanceof ApiFailure && err.status !== 403 && err.status !== 404)
      return { ok: null, refused: { code: err.code, message: err.message } };
    throw err;
  }
}

export async function form(c: ConsoleCtx): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === "string") out[k] = v;
  return out;
}

/** A number field as typed: a number when it reads as one, else the text (so the API names the mistake). */
export function num(v: string | undefined): number | string {
  const t = (v ?? "").trim();
  return t !== "" && Number.isFinite(Number(t)) ? Number(t) : t;
}

export const enc = encodeURIComponent;

export const AdminNav: FC<{ at: "users" | "fleets" | "webhooks" }> = ({ at }) => (
  <nav aria-label="Admin" class="subnav">
    <ul>
      {(
        [
          ["users", "/console/admin", "Users"],
          ["fleets", "/console/admin/fleets", "Fleets and nodes"],
          ["webhooks", "/console/admin/webhooks", "Webhooks"],
        ] as const
      ).map(([k, href, label]) => (
        <li>
          <a href={href} aria-current={k === at ? "page" : undefined}>
            {label}
          </a>
        </li>
      ))}
    </ul>
  </nav>
);

export const Refused: FC<{ refused: Refusal }> = ({ refused }) =>
  refused ? (
    <div class="error form-error" role="alert">
      <strong>{`Refused (${refused.code})`}</strong>
      {`: ${refused.message}`}
    </div>
  ) : null;

export function page(
  c: ConsoleCtx,
  title: string,
  at: "users" | "fleets" | "webhooks",
  body: Child,
  status = 200,
) {
  return c.html(
    <Layout title={title} session={c.get("session")} section="admin">
      <AdminNav at={at} />
      {body}
    </Layout>,
    status as 200,
  );
}
