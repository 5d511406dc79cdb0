/** `sf completion bash` is sourced into a real bash and asked what it completes, as bash itself would. */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { newSfHome, sf } from "../support/sf.js";

/** COMPREPLY for the words typed so far (the last one is the word being completed). */
function complete(script: string, words: string[]): string[] {
  const r = spawnSync(
    "bash",
    [
      "--norc",
      "-c",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a JS template
      'eval "$(cat)"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _sf; printf "%s\\n" "${COMPREPLY[@]}"',
      "bash",
      ...words,
    ],
    { input: script, encoding: "utf8" },
  );
  if (r.status !== 0 || r.stderr) throw new Error(r.stderr);
  return r.stdout.split("\n").filter(Boolean);
}

describe("sf completion", () => {
  it("bash: completes commands, nested subcommands, options and choices from the real command tree", async () => {
    const r = await sf(["completion", "bash"], { home: newSfHome() });
    expect(r.code, r.stderr).toBe(0);
    const script = r.stdout;
    expect(complete(script, ["sf", "jo"])).toEqual(["job"]);
    expect(complete(script, ["sf", "admin", "fleet", ""])).toEqual([
      "create",
      "ls",
      "show",
      "network",
      "preemption",
      "labels",
      "diagnosis",
      "enroll-token",
    ]);
    expect(complete(script, ["sf", "--json", "admin", "ma"])).toEqual(["maintenance"]);
    expect(complete(script, ["sf", "admin", "quota", "ada", "--p"])).toEqual(["--profiles", "--priority"]);
    expect(complete(script, ["sf", "admin", "user-add", "ada", "--role", ""])).toEqual([
      "viewer",
      "operator",
      "admin",
    ]);
    expect(complete(script, ["sf", "completion", "z"])).toEqual(["zsh"]);
  });

  it("prints zsh and fish scripts and refuses other shells", async () => {
    const home = newSfHome();
    const zsh = await sf(["completion", "zsh"], { home });
    expect(zsh.stdout.startsWith("#compdef sf\n")).toBe(true);
    expect(zsh.stdout).toContain("'sf admin fleet') reply=(");
    const fish = await sf(["completion", "fish"], { home });
    expect(fish.stdout).toContain("complete -c sf -f -n 'test (__sf_cmdpath) = '\\''sf'\\''' -a 'job'");
    const bad = await sf(["completion", "tcsh"], { home });
    expect(bad.code).toBe(2);
  });
});
