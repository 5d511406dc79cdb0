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

const NAME_COMPONENT = /^[a-z0-9*]+(?:(?:[._]|__|-+)[a-z0-9*]+)*$/;

export function parseImageRef(ref: string): ImageRef | null {
  let rest = ref.trim();
  let digest: string | null = null;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!/^sha256:[0-9a-f]{64}$/.test(digest)) return null;
  }
  // A ':' after the last '/' starts the tag; one before it is a registry port.
  let tag: string | null = null;
  const colon = rest.lastIndexOf(":");
  if (colon > rest.lastIndexOf("/")) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!/^[\w][\w.-]{0,127}$/.test(tag)) return null;
  }
  const parts = rest.split("/");
  const first = parts[0]!;
  const hasRegistry =
    parts.length > 1 && (first.includes(".") || first.includes(":") || first === "localhost");
  const registry = hasRegistry ? first.toLowerCase() : "docker.io";
  const path = (hasRegistry ? parts.slice(1) : parts).map((p) => p.toLowerCase());
  if (registry.includes(":") && !/^[a-z0-9.-]+:\d{1,5}$/.test(registry)) return null;
  if (path.length === 0 || !path.every((p) => NAME_COMPONENT.test(p))) return null;
  // Docker Hub's official images live under library/, whether or not the registry is spelled out.
  if (registry === "docker.io" && path.length === 1) path.unshift("library");
  return { repo: `${registry}/${path.join("/")}`, tag, digest };
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
