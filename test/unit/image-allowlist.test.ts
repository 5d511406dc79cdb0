import { describe, expect, it } from "vitest";
import { imageAllowed, parseImageRef } from "../../contract/image-allowlist.js";

const SHA_A = `sha256:${"a".repeat(64)}`;
const SHA_B = `sha256:${"b".repeat(64)}`;

describe("parseImageRef", () => {
  it("expands Docker Hub short names like docker does", () => {
    expect(parseImageRef("python:3.11")).toEqual({
      repo: "docker.io/library/python",
      tag: "3.11",
      digest: null,
    });
    expect(parseImageRef("python")).toEqual({ repo: "docker.io/library/python", tag: null, digest: null });
    expect(parseImageRef("acme/trainer:v2")).toEqual({
      repo: "docker.io/acme/trainer",
      tag: "v2",
      digest: null,
    });
    expect(parseImageRef("docker.io/library/python:3.11")).toEqual(parseImageRef("python:3.11"));
  });

  // docker itself treats `docker.io/python` as the official image `docker.io/library/python`.
  it("expands docker.io/NAME to the official library image", () => {
    expect(parseImageRef("docker.io/python:3.11")).toEqual(parseImageRef("python:3.11"));
  });

  it("keeps a registry port in the repository and reads the tag after the last slash", () => {
    expect(parseImageRef("localhost:5000/team/app:1.2")).toEqual({
      repo: "localhost:5000/team/app",
      tag: "1.2",
      digest: null,
    });
    expect(parseImageRef("registry:5000/app")).toEqual({
      repo: "registry:5000/app",
      tag: null,
      digest: null,
    });
    expect(parseImageRef("reg.example.com:443/a/b")?.repo).toBe("reg.example.com:443/a/b");
  });

  it("reads a tag and a digest together", () => {
    expect(parseImageRef(`ghcr.io/acme/app:1.0@${SHA_A}`)).toEqual({
      repo: "ghcr.io/acme/app",
      tag: "1.0",
      digest: SHA_A,
    });
  });

  it.each([
    "",
    "   ",
    "python 3",
    "python@sha256:abc",
    `python@md5:${"a".repeat(32)}`,
    `@${SHA_A}`,
    "python@",
  ])("refuses the malformed reference %j", (ref) => {
    expect(parseImageRef(ref)).toBeNull();
  });

  // `docker pull` answers "invalid reference format" for these; the allowlist must not admit them
  // through a glob and let the launch fail on the node.
  it.each(["python:", "ubuntu:1:2", "a::b"])("refuses the malformed reference %j (stray colons)", (ref) => {
    expect(parseImageRef(ref)).toBeNull();
  });
});

describe("imageAllowed", () => {
  it("admits nothing with an empty allowlist", () => {
    expect(imageAllowed("python:3.11", [])).toBe(false);
    expect(imageAllowed("ghcr.io/acme/app:1", [])).toBe(false);
  });

  it("admits every well-formed image with a lone *", () => {
    expect(imageAllowed("python:3.11", ["*"])).toBe(true);
    expect(imageAllowed(`localhost:5000/x/y@${SHA_A}`, [" * "])).toBe(true);
  });

  it("refuses malformed images even with a lone *", () => {
    expect(imageAllowed("python 3", ["*"])).toBe(false);
    expect(imageAllowed("", ["*"])).toBe(false);
  });

  it("matches short and fully qualified Docker Hub names against each other", () => {
    expect(imageAllowed("python:3.11", ["docker.io/library/python:3.11"])).toBe(true);
    expect(imageAllowed("docker.io/library/python:3.11", ["python:3.11"])).toBe(true);
    expect(imageAllowed("python:3.11", ["pytorch/pytorch"])).toBe(false);
  });

  it("admits any tag or digest when the pattern has neither", () => {
    expect(imageAllowed("python:3.12", ["python"])).toBe(true);
    expect(imageAllowed("python", ["python"])).toBe(true);
    expect(imageAllowed(`python@${SHA_A}`, ["python"])).toBe(true);
  });

  describe("globs", () => {
    const acme = ["ghcr.io/acme/*"];

    it("admits everything under the prefix, at any depth", () => {
      expect(imageAllowed("ghcr.io/acme/trainer:1.0", acme)).toBe(true);
      expect(imageAllowed("ghcr.io/acme/team/trainer", acme)).toBe(true);
    });

    it("does not admit a look-alike organisation or registry", () => {
      expect(imageAllowed("ghcr.io/acme-evil/trainer:1.0", acme)).toBe(false);
      expect(imageAllowed("ghcr.io/acmeevil/trainer", acme)).toBe(false);
      expect(imageAllowed("docker.io/acme/trainer", acme)).toBe(false);
      expect(imageAllowed("acme/trainer", acme)).toBe(false);
      expect(imageAllowed("evil.io/ghcr.io/acme/trainer", acme)).toBe(false);
    });

    it("treats dots in patterns literally", () => {
      expect(imageAllowed("regxexample.com/app", ["reg.example.com/*"])).toBe(false);
      expect(imageAllowed("reg.example.com/app", ["reg.example.com/*"])).toBe(true);
    });

    it("works with a registry port", () => {
      expect(imageAllowed("localhost:5000/team/app:dev", ["localhost:5000/team/*"])).toBe(true);
      expect(imageAllowed("localhost:5001/team/app:dev", ["localhost:5000/team/*"])).toBe(false);
    });

    it("applies a tag after the glob", () => {
      expect(imageAllowed("ghcr.io/acme/app:stable", ["ghcr.io/acme/*:stable"])).toBe(true);
      expect(imageAllowed("ghcr.io/acme/app:dev", ["ghcr.io/acme/*:stable"])).toBe(false);
    });
  });

  describe("tag patterns", () => {
    it("admit exactly that tag", () => {
      expect(imageAllowed("python:3.11", ["python:3.11"])).toBe(true);
      expect(imageAllowed("python:3.12", ["python:3.11"])).toBe(false);
      expect(imageAllowed("python:3.11-slim", ["python:3.11"])).toBe(false);
    });

    it("admit that tag when the image also pins a digest", () => {
      expect(imageAllowed(`python:3.11@${SHA_A}`, ["python:3.11"])).toBe(true);
    });

    it("do not admit an untagged image, except for :latest", () => {
      expect(imageAllowed("python", ["python:3.11"])).toBe(false);
      expect(imageAllowed("python", ["python:latest"])).toBe(true);
      expect(imageAllowed(`python@${SHA_A}`, ["python:latest"])).toBe(false);
    });
  });

  describe("digest patterns", () => {
    const pinned = [`ghcr.io/acme/app@${SHA_A}`];

    it("admit only images pinned to that digest", () => {
      expect(imageAllowed(`ghcr.io/acme/app@${SHA_A}`, pinned)).toBe(true);
      expect(imageAllowed(`ghcr.io/acme/app:1.0@${SHA_A}`, pinned)).toBe(true);
      expect(imageAllowed(`ghcr.io/acme/app@${SHA_B}`, pinned)).toBe(false);
      expect(imageAllowed("ghcr.io/acme/app:1.0", pinned)).toBe(false);
      expect(imageAllowed("ghcr.io/acme/app", pinned)).toBe(false);
    });

    it("still require the repository to match", () => {
      expect(imageAllowed(`ghcr.io/acme/other@${SHA_A}`, pinned)).toBe(false);
    });
  });

  it("admits an image when any one pattern matches and skips malformed patterns", () => {
    const patterns = ["not a pattern", "python:3.10", "ghcr.io/acme/*"];
    expect(imageAllowed("ghcr.io/acme/app", patterns)).toBe(true);
    expect(imageAllowed("python:3.10", patterns)).toBe(true);
    expect(imageAllowed("python:3.11", patterns)).toBe(false);
  });
});
