/** `sf methods [NAME]`: what the server can run, and each method's typed parameters. */
import type { Command } from "commander";
import { c, emit, print, table } from "../../output.js";
import { checkMethodName, fetchCatalog, findRecipe, latestVersion, rangeOf, shortDigest } from "./catalog.js";

function frameworks(fs: ReadonlyArray<{ kind: string; versions: string[] }>): string {
  return fs.map((f) => `${f.kind} ${f.versions.join(", ")}`).join("; ");
}

function clip(s: string, n: number): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

export async function methods(cmd: Command, name: string | undefined): Promise<void> {
  if (name) checkMethodName(name);
  const catalog = await fetchCatalog(cmd);
  if (!name) {
    emit(catalog, () => {
      table(
        catalog.recipes.map((r) => {
          const v = latestVersion(r);
          return {
            name: r.name,
            latest: r.latest,
            frameworks: frameworks(v.frameworks),
            description: clip(v.description, 60),
          };
        }),
        ["name", "latest", "frameworks", "description"],
      );
      print("");
      print(c.dim("details: sf methods <name>    start an experiment: sf new <exp> --method <name>"));
    });
    return;
  }
  const recipe = findRecipe(catalog, name);
  const v = latestVersion(recipe);
  emit({ catalog_digest: catalog.digest, ...recipe }, () => {
    print(`${c.bold(recipe.name)}  latest ${recipe.latest}`);
    if (v.description) print(v.description);
    print("");
    print(c.bold("Frameworks"));
    for (const f of v.frameworks) {
      print(
        `  ${f.kind} ${f.versions.join(", ")}  runtime ${f.runtime_id}${f.image ? `, default image ${f.image}` : ""}`,
      );
    }
    const entry =
      v.entrypoint.kind === "script" ? `bash ${v.entrypoint.path}` : `python -m ${v.entrypoint.module}`;
    print(
      `  entrypoint: ${entry}${v.requires_image ? "; brings its own image (set `image:` in config.yaml)" : ""}`,
    );
    const launch = v.entrypoint.processes;
    if (launch) {
      print(
        `  distributed: ${launch === "per_gpu" ? "one process per GPU" : "one launcher per node (it starts the workers)"} on every node; the ranks meet through the control plane (docs/multi-node.md)`,
      );
    }
    print("");
    const names = Object.keys(v.params);
    if (names.length === 0) print(c.dim(`${recipe.name}@${v.version} takes no hyperparameters`));
    else {
      print(c.bold(`Hyperparameters (${v.version})`));
      table(
        names.map((n) => {
          const p = v.params[n]!;
          return {
            name: n,
            type: p.type,
            default: p.default === undefined ? "(required)" : JSON.stringify(p.default),
            range: rangeOf(p) || "-",
            doc: p.doc,
          };
        }),
        ["name", "type", "default", "range", "doc"],
      );
    }
    print("");
    print(c.bold("Versions"));
    table(
      recipe.versions.map((x) => ({
        version: x.version,
        digest: shortDigest(x.digest),
        frameworks: frameworks(x.frameworks),
        published: `${x.published_at.slice(0, 10)} by ${x.published_by}`,
      })),
      ["version", "digest", "frameworks", "published"],
    );
    if (v.template && Object.keys(v.template).length)
      print(`\nsf new scaffolds: ${Object.keys(v.template).join(", ")}`);
  });
}
