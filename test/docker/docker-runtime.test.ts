/**
 * The docker runtime against a real dockerd (started by scripts/start-dockerd.sh) and a real image built
 * without a registry (scripts/build-image.sh --minimal). Every test leaves no managed container behind.
 */
import { chownSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { LaunchError, type RunSpec } from "../../forgelet/runtime.js";
import { DockerRuntime, dockerSocket } from "../../forgelet/runtimes/docker.js";
import {
  containerLogs,
  docker,
  ensureDockerAndImage,
  IMAGE,
  inspect,
  journalSpec,
  makeRun,
  managedContainers,
  runsRoot,
  startInterceptingProxy,
  waitForFile,
} from "./docker-helpers.js";

const noGpu = () => new DockerRuntime(runsRoot, { gpuPassthrough: false });

async function runToEnd(rt: DockerRuntime, spec: RunSpec) {
  const ref = await rt.launch(spec);
  const exit = await rt.wait(ref, spec);
  return { ref, exit };
}

beforeAll(() => ensureDockerAndImage(), 300_000);

afterEach(() => {
  vi.unstubAllEnvs();
  // Remove leftovers so one leaking test does not fail the next, then fail the test that leaked.
  const leftovers = managedContainers();
  for (const id of leftovers) docker("rm", "-f", id);
  expect(leftovers, "managed containers left behind by this test").toEqual([]);
});

describe("launch and wait", () => {
  it("runs bootstrap.sh in the image and reports exit code 0", async () => {
    const rt = noGpu();
    const spec = makeRun("python3 -c 'print(\"trained\")' > /sf/out/result.txt");
    const { ref, exit } = await runToEnd(rt, spec);
    expect(exit).toEqual({ exitCode: 0, reason: "exited with code 0", infra: false });
    expect(readFileSync(join(spec.runDir, "out", "result.txt"), "utf8")).toBe("trained\n");
    await rt.cleanup(ref, spec);
  });

  it("reports the workload's own non-zero exit code, not as an infra failure", async () => {
    const rt = noGpu();
    const spec = makeRun("echo failing >&2; exit 3");
    const { ref, exit } = await runToEnd(rt, spec);
    expect(exit).toEqual({ exitCode: 3, reason: "exited with code 3", infra: false });
    // Logs stay readable through docker until cleanup (the runner ships them itself).
    expect(containerLogs(ref.id)).toContain("failing");
    await rt.cleanup(ref, spec);
  });

  it("labels the container, names it by run and rank, and list finds it", async () => {
    const rt = noGpu();
    const spec = makeRun("sleep 30", { rank: 2, resources: { cpus: 1.5, memoryMb: 256 } });
    const ref = await rt.launch(spec);
    const info = inspect(ref.id);
    expect(info.Name).toBe(`/sf-${spec.runId}-r2`);
    expect(info.Config.Labels).toMatchObject({ ...spec.labels, "starforge.managed": "true" });
    expect(info.Config.Labels["starforge.run_id"]).toBe(spec.runId);
    expect(info.HostConfig).toMatchObject({
      NetworkMode: "host",
      NanoCpus: 1_500_000_000,
      Memory: 256 * 1024 * 1024,
    });
    const listed = (await rt.list()).find((c) => c.ref.id === ref.id);
    expect(listed?.labels["starforge.run_id"]).toBe(spec.runId);
    expect(listed?.ref.kind).toBe("docker");
    expect(await rt.alive(ref)).toBe(true);
    await rt.stop(ref, 0);
    expect(await rt.alive(ref)).toBe(false);
    await rt.cleanup(ref, spec);
  });

  it("gives the workload the spec env, FORGE_RUN_ROOT=/sf and the run directory mounted at /sf", async () => {
    const rt = noGpu();
    const spec = makeRun(
      "env > /sf/out/env.txt; pwd > /sf/out/pwd.txt; cat /sf/.starforge/capsule/bootstrap.sh > /dev/null",
      {
        env: { FORGE_RUN_ROOT: "/host/path/that/must/not/leak", SF_TEST_VALUE: "hello from the spec" },
      },
    );
    const { ref, exit } = await runToEnd(rt, spec);
    expect(exit.exitCode).toBe(0);
    const env = readFileSync(join(spec.runDir, "out", "env.txt"), "utf8").split("\n");
    expect(env).toContain("FORGE_RUN_ROOT=/sf");
    expect(env).toContain("SF_TEST_VALUE=hello from the spec");
    expect(readFileSync(join(spec.runDir, "out", "pwd.txt"), "utf8").trim()).toBe("/sf");
    await rt.cleanup(ref, spec);
  });

  it("gives the workload its secrets through the Docker API only: in its environment, never in a file of the run directory, and never over a variable StarForge sets", async () => {
    const rt = noGpu();
    const secret = "docker-secret-7c1e93b5a2";
    const spec = makeRun(
      // Checked in two halves, so the script itself never holds the whole value.
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
      '[ "${MY_SECRET%93b5a2}" = "docker-secret-7c1e" ] && echo ok > /sf/out/seen.txt; echo "rank=$FORGE_RANK" > /sf/out/rank.txt',
      { secrets: { MY_SECRET: secret, FORGE_RANK: "shadowed" } },
    );
    const { ref, exit } = await runToEnd(rt, spec);
    expect(exit.exitCode).toBe(0);
    expect(readFileSync(join(spec.runDir, "out", "seen.txt"), "utf8").trim()).toBe("ok");
    expect(readFileSync(join(spec.runDir, "out", "rank.txt"), "utf8").trim()).toBe("rank=0");
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
      );
    expect(files(spec.runDir).filter((f) => readFileSync(f).includes(secret))).toEqual([]);
    await rt.cleanup(ref, spec);
  });

  it("reaches a server on the host's 127.0.0.1 (host network, where the control plane listens)", async () => {
    const server: Server = createServer((_req, res) => res.end("control plane here"));
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    const { port } = server.address() as AddressInfo;
    try {
      const rt = noGpu();
      const spec = makeRun(
        `python3 -c 'import urllib.request; print(urllib.request.urlopen("http://127.0.0.1:${port}/").read().decode())' > /sf/out/reply.txt`,
      );
      const { ref, exit } = await runToEnd(rt, spec);
      expect(exit.exitCode).toBe(0);
      expect(readFileSync(join(spec.runDir, "out", "reply.txt"), "utf8").trim()).toBe("control plane here");
      await rt.cleanup(ref, spec);
    } finally {
      server.close();
    }
  });

  it("runs the workload as the configured user, so a non-root agent can delete what it wrote", async () => {
    const rt = new DockerRuntime(runsRoot, { gpuPassthrough: false, user: "65534:65534" });
    const spec = makeRun("id -u > /sf/out/uid.txt");
    chownSync(join(spec.runDir, "out"), 65534, 65534);
    const { ref, exit } = await runToEnd(rt, spec);
    expect(exit.exitCode).toBe(0);
    expect(readFileSync(join(spec.runDir, "out", "uid.txt"), "utf8").trim()).toBe("65534");
    expect(statSync(join(spec.runDir, "out", "uid.txt")).uid).toBe(65534);
    await rt.cleanup(ref, spec);
  });
  it("replaces a stopped leftover of the same run and rank, but never a running one", async () => {
    const rt = noGpu();
    const spec = makeRun("touch /sf/out/started; sleep 120");
    const first = await rt.launch(spec);
    const again = await rt.launch(spec).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(LaunchError);
    expect((again as LaunchError).message).toMatch(/already running/);
    await rt.stop(first, 0);
    // The agent lost its journal entry and launches the same rank again: the stale container gives way.
    const second = await rt.launch(spec);
    expect(second.id).not.toBe(first.id);
    expect(managedContainers()).toEqual([second.id]);
    await rt.cleanup(second, spec);
  });
});

describe("images", () => {
  it("refuses a job without an image (not an infra failure) unless the node has a default image", async () => {
    const err = await noGpu()
      .launch(makeRun("exit 0", { image: null }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect(err).toMatchObject({
      infra: false,
      message: "this job has no image, and this docker node has no --default-image for image-less jobs",
    });
    // --default-image: the image-less job runs in it.
    const withDefault = new DockerRuntime(runsRoot, { gpuPassthrough: false, defaultImage: IMAGE });
    await withDefault.preflight();
    const spec = makeRun("grep -q bookworm /etc/os-release && exit 4", { image: null });
    const { ref, exit } = await runToEnd(withDefault, spec);
    expect(exit.exitCode).toBe(4);
    await withDefault.cleanup(ref, spec);
    // A default image that is not on the node stops the agent at its start, by name.
    const missing = new DockerRuntime(runsRoot, {
      gpuPassthrough: false,
      defaultImage: "starforge/absent:0",
    });
    await expect(missing.preflight()).rejects.toThrow(/--default-image: .*starforge\/absent:0/);
  });

  it("names a missing image and never pulls it", async () => {
    const err = await noGpu()
      .launch(makeRun("exit 0", { image: "starforge/not-built-here:0.0" }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchError);
    expect(err).toMatchObject({ infra: false });
    expect((err as LaunchError).message).toContain("starforge/not-built-here:0.0");
    expect(docker("images", "-q", "starforge/not-built-here")).toBe("");
  });
});

describe("GPU passthrough", () => {
  it("requests exactly the allocated GPUs and fails clearly where no NVIDIA runtime exists", async () => {
    let created: ReturnType<typeof inspect> | undefined;
    const proxy = await startInterceptingProxy(dockerSocket(), (id) => {
      created = inspect(id);
    });
    try {
      const rt = new DockerRuntime(runsRoot, { gpuPassthrough: true, socketPath: proxy.socketPath });
      const spec = makeRun("exit 0", { gpuIndices: [1, 3], env: { FORGE_GPU_INDICES: "1,3" } });
      const err = await rt.launch(spec).catch((e: unknown) => e);
      expect(created?.HostConfig.DeviceRequests).toHaveLength(1);
      expect(created?.HostConfig.DeviceRequests?.[0]).toMatchObject({
        Driver: "nvidia",
        DeviceIDs: ["1", "3"],
        Capabilities: [["gpu"]],
      });
      expect(err).toBeInstanceOf(LaunchError);
      expect(err).toMatchObject({ infra: true });
      expect((err as LaunchError).message).toMatch(
        /could not select device driver.*FORGE_LOCAL_GPU_PASSTHROUGH=0/,
      );
      expect(managedContainers()).toEqual([]);
    } finally {
      proxy.close();
    }
  });

  it("with FORGE_LOCAL_GPU_PASSTHROUGH=0 sends no device request but keeps the GPU env", async () => {
    vi.stubEnv("FORGE_LOCAL_GPU_PASSTHROUGH", "0");
    const rt = new DockerRuntime(runsRoot);
    expect(rt.gpuPassthrough).toBe(false);
    const spec = makeRun("echo $FORGE_GPU_INDICES > /sf/out/gpus.txt", {
      gpuIndices: [1, 3],
      env: { FORGE_GPU_INDICES: "1,3" },
      labels: { "starforge.run_id": "x", "starforge.gpus": "1,3" },
    });
    const { ref, exit } = await runToEnd(rt, spec);
    expect(exit).toEqual({ exitCode: 0, reason: "exited with code 0", infra: false });
    const info = inspect(ref.id);
    expect(info.HostConfig.DeviceRequests ?? []).toEqual([]);
    expect(info.Config.Labels["starforge.gpus"]).toBe("1,3");
    expect(readFileSync(join(spec.runDir, "out", "gpus.txt"), "utf8").trim()).toBe("1,3");
    await rt.cleanup(ref, spec);
  });

  it("sends no device request for a rank without GPUs even with passthrough on", async () => {
    const rt = new DockerRuntime(runsRoot, { gpuPassthrough: true });
    const spec = makeRun("exit 0");
    const { ref, exit } = await runToEnd(rt, spec);
    expect(exit.exitCode).toBe(0);
    expect(inspect(ref.id).HostConfig.DeviceRequests ?? []).toEqual([]);
    await rt.cleanup(ref, spec);
  });
});

describe("stop, OOM and agent restarts", () => {
  it("stop delivers SIGTERM to the workload and its children, which can finish cleanly", async () => {
    const rt = noGpu();
    // Like the capsule, bootstrap.sh execs a python runner that starts the trainer as a child. The
    // trainer must see TERM itself (that is where it saves a checkpoint), not only PID 1 or the runner.
    const spec = makeRun(`exec python3 -c '
import signal, subprocess, sys
signal.signal(signal.SIGTERM, lambda *_: None)
trainer = subprocess.Popen([sys.executable, "-c", """
import signal, sys, time
def term(*_):
    open("/sf/out/terminated", "w").write("saved")
    sys.exit(0)
signal.signal(signal.SIGTERM, term)
open("/sf/out/started", "w").write("1")
time.sleep(120)
"""])
sys.exit(trainer.wait())
'`);
    const ref = await rt.launch(spec);
    await waitForFile(join(spec.runDir, "out", "started"));
    const t0 = Date.now();
    await rt.stop(ref, 20_000);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(await rt.wait(ref, spec)).toEqual({ exitCode: 0, reason: "exited with code 0", infra: false });
    expect(readFileSync(join(spec.runDir, "out", "terminated"), "utf8")).toBe("saved");
    await rt.cleanup(ref, spec);
  });

  it("stop kills a workload that ignores SIGTERM once the grace period is over", async () => {
    const rt = noGpu();
    const spec = makeRun("trap '' TERM\ntouch /sf/out/started\nwhile true; do sleep 1; done");
    const ref = await rt.launch(spec);
    await waitForFile(join(spec.runDir, "out", "started"));
    const t0 = Date.now();
    await rt.stop(ref, 2000);
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(1900);
    expect(took).toBeLessThan(15_000);
    expect(await rt.wait(ref, spec)).toEqual({
      exitCode: 137,
      reason: "killed by signal 9 (exit 137)",
      infra: false,
    });
    await rt.cleanup(ref, spec);
  });

  it("reports a run over its memory limit as OOM-killed by the host (infra)", async () => {
    const rt = noGpu();
    const spec = makeRun("python3 -c 'data = b\"x\" * (200 * 1024 * 1024)'", { resources: { memoryMb: 32 } });
    const { ref, exit } = await runToEnd(rt, spec);
    expect(exit.exitCode).toBe(137);
    expect(exit.infra).toBe(true);
    expect(exit.reason).toMatch(/OOM/);
    await rt.cleanup(ref, spec);
  });

  it("a restarted agent learns the exit code of a container that ended while nobody watched", async () => {
    const spec = makeRun("exit 7");
    const ref = await noGpu().launch(spec);
    await expect.poll(() => inspect(ref.id).State.Running, { timeout: 15_000 }).toBe(false);
    const fresh = noGpu();
    expect(await fresh.alive(ref)).toBe(false);
    expect(await fresh.wait(ref, journalSpec(spec))).toEqual({
      exitCode: 7,
      reason: "exited with code 7",
      infra: false,
    });
    await fresh.cleanup(ref, journalSpec(spec));
  });

  it("a restarted agent can wait on and stop a container an earlier instance started", async () => {
    const spec = makeRun("touch /sf/out/started; sleep 120");
    const ref = await noGpu().launch(spec);
    await waitForFile(join(spec.runDir, "out", "started"));
    const fresh = noGpu();
    expect(await fresh.alive(ref)).toBe(true);
    const exited = fresh.wait(ref, journalSpec(spec));
    await fresh.stop(ref, 5000);
    expect(await exited).toEqual({ exitCode: 143, reason: "killed by signal 15 (exit 143)", infra: false });
    await fresh.cleanup(ref, journalSpec(spec));
  });
});

describe("cleanup and preflight", () => {
  it("cleanup removes the container and the run directory", async () => {
    const rt = noGpu();
    const spec = makeRun("exit 0");
    const { ref } = await runToEnd(rt, spec);
    await rt.cleanup(ref, spec);
    expect(managedContainers()).not.toContain(ref.id);
    expect(existsSync(spec.runDir)).toBe(false);
  });

  it("cleanup with keepRuns keeps the run directory, and finds the container by name without a ref", async () => {
    const rt = new DockerRuntime(runsRoot, { gpuPassthrough: false, keepRuns: true });
    const spec = makeRun("echo kept > /sf/out/kept.txt; sleep 120");
    const ref = await rt.launch(spec);
    await waitForFile(join(spec.runDir, "out", "kept.txt"));
    // The agent died between creating the container and journaling its id: cleanup gets no ref.
    await rt.cleanup(null, spec);
    expect(managedContainers()).not.toContain(ref.id);
    expect(readFileSync(join(spec.runDir, "out", "kept.txt"), "utf8")).toBe("kept\n");
  });

  it("preflight passes against the running daemon", async () => {
    await expect(noGpu().preflight()).resolves.toBeUndefined();
  });

  it("preflight names the socket and the way out when no daemon answers", async () => {
    vi.stubEnv("DOCKER_HOST", "unix:///nonexistent.sock");
    const rt = new DockerRuntime(runsRoot);
    await expect(rt.preflight()).rejects.toThrow(
      /^docker runtime selected but no Docker daemon answers at \/nonexistent\.sock: .*ENOENT.*; start dockerd or choose --runtime process$/,
    );
  });
});

afterAll(() => rmSync(runsRoot, { recursive: true, force: true }));
