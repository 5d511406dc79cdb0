/** @jsxImportSource hono/jsx */
/**
 * The page frame every console page shares: a skip link, the header with navigation and the signed-in
 * user, one <main> landmark, the stylesheet and the one deferred script. No inline script or style
 * (the CSP forbids both): behaviour hangs off data-* attributes the script reads.
 */
import type { Child, FC } from "hono/jsx";
import { assetUrl } from "./assets.js";
import type { Session } from "./session.js";

export type Section = "jobs" | "fleets" | "usage" | "admin" | "api" | "device" | "none";

export interface LayoutProps {
  title: string;
  /** Absent on the sign-in page and error pages shown signed out. */
  session?: Session | undefined;
  section?: Section;
  children?: Child;
}

const NAV: Array<{ section: Section; href: string; label: string; admin?: boolean }> = [
  { section: "jobs", href: "/console/jobs", label: "Jobs" },
  { section: "fleets", href: "/console/fleets", label: "Fleets" },
  { section: "usage", href: "/console/usage", label: "Usage" },
  { section: "admin", href: "/console/admin", label: "Admin", admin: true },
  { section: "api", href: "/console/api", label: "API" },
];

export const Layout: FC<LayoutProps> = ({ title, session, section = "none", children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="color-scheme" content="light dark" />
      <title>{`${title} · StarForge`}</title>
      <link rel="icon" href="data:," />
      <link rel="stylesheet" href={assetUrl("app.css")} />
      <script src={assetUrl("app.js")} defer />
    </head>
    <body>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/console/jobs">
          StarForge
        </a>
        {session ? (
          <nav aria-label="Main">
            <ul>
              {NAV.filter((n) => !n.admin || session.principal.role === "admin").map((n) => (
                <li>
                  <a href={n.href} aria-current={n.section === section ? "page" : undefined}>
                    {n.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
        {session ? (
          <form class="who" method="post" action="/console/sign-out">
            <span>
              {session.principal.name} <span class="role">({session.principal.role})</span>
            </span>
            <CsrfField session={session} />
            <button type="submit" class="link">
              Sign out
            </button>
          </form>
        ) : null}
      </header>
      <main id="main" tabindex={-1}>
        {children}
      </main>
    </body>
  </html>
);

/** The hidden field every state-changing form carries (checked by `requireCsrf`). */
export const CsrfField: FC<{ session: Session }> = ({ session }) => (
  <input type="hidden" name="_csrf" value={session.csrf} />
);

/** A timestamp shown in the viewer's time zone by the script; UTC until it runs. */
export const Time: FC<{ iso: string | null | undefined; fallback?: string }> = ({ iso, fallback = "—" }) =>
  iso ? (
    <time datetime={iso} data-local-time="">
      {iso.replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC")}
    </time>
  ) : (
    <span>{fallback}</span>
  );

/** A page's error or empty state, with what the user can do about it. */
export const Notice: FC<{ kind: "error" | "empty" | "info"; title: string; children?: Child }> = ({
  kind,
  title,
  children,
}) => (
  <section class={`notice ${kind}`} role={kind === "error" ? "alert" : undefined}>
    <h2>{title}</h2>
    {children}
  </section>
);

/**
 * A data table: column headings, the rows given as children, in a box that scrolls sideways on a narrow
 * screen instead of the page.
 */
export const DataTable: FC<{ class?: string; columns: string[]; caption?: string; children?: Child }> = (
  p,
) => (
  <div class="table-wrap">
    <table class={p.class}>
      {p.caption ? <caption class="visually-hidden">{p.caption}</caption> : null}
      <thead>
        <tr>
          {p.columns.map((c) => (
            <th scope="col">{c}</th>
          ))}
        </tr>
      </thead>
      <tbody>{p.children}</tbody>
    </table>
  </div>
);
