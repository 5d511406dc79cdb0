/**
 * Image allowlist matching. Patterns and images are normalised like docker does (`python:3` is
 * `docker.io/library/python:3`). A pattern is `repo`, `repo:tag` or `repo@sha256:…`; `*` in the repo
 * part matches any characters, including `/`; a lone `*` admits every image. A digest pattern only admits images pinned to that digest;
 * a tag pattern admits that tag whether or not the image also pins a digest.
 */

export interface ImageRef {
  repo: string;
  tag: string | null;
  digest: string | null;
}

export function parseImageRef(ref: string): ImageRef | null {
  const m = /^([^@\s]+?)(?::([\w][\w.-]{0,127}))?(?:@(sha256:[0-9a-f]{64}))?$/.exec(ref.trim());
  if (!m) return null;
  let repo = m[1]!;
  // A ':' after the last '/' is a tag; one before it is a registry port and stays in the repo.
  const first = repo.split("/")[0]!;
  const hasRegistry =
    repo.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost");
  if (!hasRegistry) repo = `docker.io/${repo.includes("/") ? repo : `library/${repo}`}`;
  return { repo: repo.toLowerCase(), tag: m[2] ?? null, digest: m[3] ?? null };
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*");
  return new RegExp(`^${escaped}$`);
}

export function imageAllowed(image: string, patterns: readonly string[]): boolean {
  const img = parseImageRef(image);
  if (!img) return false;
  return patterns.some((p) => {
    if (p.trim() === "*") return true;
    const pat = parseImageRef(p);
    if (!pat) return false;
    if (!globToRegExp(pat.repo).test(img.repo)) return false;
    if (pat.digest) return img.digest === pat.digest;
    if (pat.tag)
      return img.tag === pat.tag || (img.tag === null && pat.tag === "latest" && img.digest === null);
    return true;
  });
}
