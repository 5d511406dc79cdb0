/**
 * Tier 3: `forgelet install-service` from the built bundle, as root (what it needs): it creates a real
 * system user, moves a credential into a real state directory under /var/lib with that owner, writes the
 * environment file and a unit that `systemd-analyze verify` accepts without a warning, and a second run
 * keeps what the agent and the operator changed. Everything it made is removed afterwards (userdel).
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = resolve(import.meta.dirname, "../../dist/forgelet.mjs");
const suffix = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
const USER = `sft${suffix}`;
const STATE = `/var/lib/sf-test-${suffix}`;

let scratch = "";
let unitDir = "";
let envFile = "";
let source = "";

const CREDENTIAL = {
  server: "https://sf.example.com",
  node_id: "nod_01testnode",
  fleet_id: "flt_01testfleet",
  fleet: "gpu",
  credential: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJub2RfMDF0ZXN0bm9kZSJ9.c2lnbmF0dXJl",
  expires_at: new Date(Date.now() + 86_400_000).toISOString(),
};

function installService(args: string[], env: Record<string, string> = {}) {
  const clean = { ...process.env };
  for (const k of ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"])
    delete clean[k];
  return spawnSync(process.execPath, [BIN, "install-service", ...args], {
    encoding: "utf8",
    env: { ...clean, ...env },
  });
}

/** systemd-analyze verify: exit status and every line it printed about this unit. */
function verify(unit: string): { status: number | null; complaints: string[] } {
  const r = spawnSync("systemd-analyze", ["verify", unit], { encoding: "utf8" });
  const complaints = `${r.stdout}${r.stderr}`.split("\n").filter((l) => l.includes("forgelet.service"));
  return { status: r.status, complaints };
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "sf-service-"));
  unitDir = join(scratch, "units");
  envFile = join(scratch, "etc", "forgelet.env");
  const home = join(scratch, "enrolled");
  mkdirSync(home, { mode: 0o700 });
  source = join(home, "credential.json");
  writeFileSync(source, JSON.stringify(CREDENTIAL), { mode: 0o600 });
});

afterAll(() => {
  if (spawnSync("getent", ["passwd", USER]).status === 0) execFileSync("userdel", [USER]);
  if (spawnSync("getent", ["group", USER]).status === 0) execFileSync("groupdel", [USER]);
  rmSync(STATE, { recursive: true, force: true });
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("forgelet install-service", () => {
  it("creates the user, installs the credential and writes a unit systemd-analyze verify accepts", () => {
    expect(process.getuid?.()).toBe(0);
    expect(spawnSync("getent", ["passwd", USER]).status).not.toBe(0);
    const r = installService(
      [
        "--runtime",
        "process",
        "--user",
        USER,
        "--state-dir",
        STATE,
        "--unit-dir",
        unitDir,
        "--environment-file",
        envFile,
        "--credential",
        source,
        "--",
        "--simulate-gpus",
        "1",
        "--gpu-series",
        "h200",
        "--label",
        "team=ml research",
      ],
      {
        HTTPS_PROXY: "http://proxy.example.com:3128",
        NO_PROXY: "localhost,.corp.example.com",
        NODE_EXTRA_CA_CERTS: "/etc/forgelet/corp-ca.pem",
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`create the system user ${USER}: useradd --system`);
    expect(r.stdout).toContain("systemctl daemon-reload");
    expect(r.stdout).toContain("systemctl enable --now forgelet");

    // A system account without a shell, at home in the state directory.
    const [, , uid, gid, , home, shell] = execFileSync("getent", ["passwd", USER], { encoding: "utf8" })
      .trim()
      .split(":");
    expect(Number(uid)).toBeLessThan(1000);
    expect(home).toBe(STATE);
    expect(shell).toBe("/usr/sbin/nologin");

    const dir = statSync(STATE);
    expect([dir.uid, dir.gid, dir.mode & 0o777]).toEqual([Number(uid), Number(gid), 0o700]);
    const cred = statSync(join(STATE, "credential.json"));
    expect([cred.uid, cred.gid, cred.mode & 0o777]).toEqual([Number(uid), Number(gid), 0o600]);
    expect(JSON.parse(readFileSync(join(STATE, "credential.json"), "utf8"))).toEqual(CREDENTIAL);

    const env = readFileSync(envFile, "utf8");
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    expect(env).toMatch(/^HTTPS_PROXY=http:\/\/proxy\.example\.com:3128$/m);
    expect(env).toMatch(/^NO_PROXY=localhost,\.corp\.example\.com$/m);
    expect(env).toMatch(/^#HTTP_PROXY=/m);
    expect(env).toMatch(/^NODE_EXTRA_CA_CERTS=\/etc\/forgelet\/corp-ca\.pem$/m);

    const unitPath = join(unitDir, "forgelet.service");
    const unit = readFileSync(unitPath, "utf8");
    const lines = unit.split("\n");
    for (const want of [
      "Restart=on-failure",
      "RestartSec=5",
      `User=${USER}`,
      `Group=${USER}`,
      `StateDirectory=sf-test-${suffix}`,
      `Environment=FORGELET_HOME=${STATE}`,
      `EnvironmentFile=-${envFile}`,
      "KillMode=process",
      "LimitNOFILE=1048576",
      "LimitMEMLOCK=infinity",
      "NoNewPrivileges=yes",
      "ProtectSystem=full",
      "ProtectKernelTunables=yes",
      "ProtectKernelModules=yes",
      "ProtectControlGroups=yes",
      "RestrictSUIDSGID=yes",
      "LockPersonality=yes",
      "WantedBy=multi-user.target",
    ]) {
      expect(lines, want).toContain(want);
    }
    expect(lines).toContain(
      `ExecStart=${process.execPath} ${realpathSync(BIN)} run --runtime process --state-dir ${STATE} --simulate-gpus 1 --gpu-series h200 --label "team=ml research"`,
    );
    // Nothing that would hide the GPUs or break a job's shared directories.
    expect(unit).not.toMatch(/^(PrivateDevices|PrivateTmp|ProtectHome|MemoryDenyWriteExecute)=/m);
    expect(unit).not.toContain("SupplementaryGroups");

    const v = verify(unitPath);
    expect(v.complaints).toEqual([]);
    expect(v.status).toBe(0);
  });

  it("keeps the credential the agent renewed and the operator's environment file when run again", () => {
    const renewed = { ...CREDENTIAL, credential: "eyJ.renewed.sig" };
    writeFileSync(join(STATE, "credential.json"), JSON.stringify(renewed));
    writeFileSync(envFile, "HTTPS_PROXY=http://edited.example.com:8080\n");
    // The default source is the enrolling user's state directory, which still holds the old credential.
    const r = installService(
      [
        "--runtime",
        "process",
        "--user",
        USER,
        "--state-dir",
        STATE,
        "--unit-dir",
        unitDir,
        "--environment-file",
        envFile,
      ],
      { FORGELET_HOME: join(scratch, "enrolled") },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("create the system user");
    expect(r.stdout).toContain(`keep ${join(STATE, "credential.json")}`);
    expect(r.stdout).toContain(`keep ${envFile} as it is`);
    expect(JSON.parse(readFileSync(join(STATE, "credential.json"), "utf8"))).toEqual(renewed);
    expect(readFileSync(envFile, "utf8")).toBe("HTTPS_PROXY=http://edited.example.com:8080\n");
    expect(statSync(join(STATE, "credential.json")).mode & 0o777).toBe(0o600);
    expect(r.stdout).toContain(`write ${join(unitDir, "forgelet.service")}`);

    // Named with --credential, a credential replaces the one in place on purpose.
    const replaced = installService([
      "--runtime",
      "process",
      "--user",
      USER,
      "--state-dir",
      STATE,
      "--unit-dir",
      unitDir,
      "--environment-file",
      envFile,
      "--credential",
      source,
    ]);
    expect(replaced.status, replaced.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(STATE, "credential.json"), "utf8"))).toEqual(CREDENTIAL);
    expect(statSync(join(STATE, "credential.json")).mode & 0o777).toBe(0o600);
  });

  it("puts a docker unit in the docker group after docker.service; --dry-run changes nothing", () => {
    const dryUnits = join(scratch, "dry-units");
    const dryUser = `sfd${suffix}`;
    const r = installService([
      "--runtime",
      "docker",
      "--user",
      dryUser,
      "--state-dir",
      `/var/lib/sf-dry-${suffix}`,
      "--unit-dir",
      dryUnits,
      "--environment-file",
      join(scratch, "dry.env"),
      "--credential",
      source,
      "--dry-run",
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`would create the system user ${dryUser}`);
    expect(r.stdout).toContain(`would write ${join(dryUnits, "forgelet.service")}`);
    expect(r.stdout).toMatch(/^ {4}SupplementaryGroups=docker$/m);
    expect(r.stdout).toMatch(/^ {4}After=network-online\.target docker\.service$/m);
    expect(existsSync(dryUnits)).toBe(false);
    expect(existsSync(join(scratch, "dry.env"))).toBe(false);
    expect(existsSync(`/var/lib/sf-dry-${suffix}`)).toBe(false);
    expect(spawnSync("getent", ["passwd", dryUser]).status).not.toBe(0);

    // The printed unit is the one a real run writes: it verifies too.
    const unit = r.stdout
      .slice(r.stdout.indexOf("    # Written by `forgelet install-service` (forgelet"))
      .split("\n")
      .filter((l) => l.startsWith("    ") || l === "")
      .map((l) => l.slice(4))
      .join("\n");
    const check = join(mkdtempSync(join(scratch, "verify-")), "forgelet.service");
    writeFileSync(
      check,
      unit.replace(`User=${dryUser}`, `User=${USER}`).replace(`Group=${dryUser}`, `Group=${USER}`),
    );
    const v = verify(check);
    expect(v.complaints).toEqual([]);
    expect(v.status).toBe(0);
  });

  it("refuses what it cannot install, saying why", () => {
    const none = installService(["--user", USER, "--unit-dir", unitDir, "--dry-run"]);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain(
      "choose the runtime the service runs: --runtime process, docker, slurm or kuberay",
    );
    const user = installService(["--runtime", "process", "--user", "Bad User", "--dry-run"]);
    expect(user.status).toBe(2);
    expect(user.stderr).toContain("--user Bad User is not a user name");
    const rel = installService(["--runtime", "process", "--state-dir", "var/lib/x", "--dry-run"]);
    expect(rel.status).toBe(2);
    expect(rel.stderr).toContain("--state-dir var/lib/x must be an absolute path");
    const twice = installService(["--runtime", "process", "--dry-run", "--", "--runtime", "docker"]);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toContain("--runtime after -- would contradict");
    const noCred = installService([
      "--runtime",
      "process",
      "--user",
      USER,
      "--state-dir",
      join(scratch, "fresh-state"),
      "--unit-dir",
      unitDir,
      "--environment-file",
      envFile,
      "--credential",
      join(scratch, "missing.json"),
    ]);
    expect(noCred.status).toBe(2);
    expect(noCred.stderr).toContain("enroll first");
    expect(readdirSync(unitDir)).toEqual(["forgelet.service"]);
  });

  it("warns when the service user could not read the forgelet file", () => {
    const hidden = join(scratch, "hidden");
    mkdirSync(hidden, { mode: 0o700 });
    chmodSync(hidden, 0o700);
    const copy = join(hidden, "forgelet.mjs");
    writeFileSync(copy, readFileSync(BIN));
    const r = installService(["--runtime", "process", "--user", USER, "--forgelet", copy, "--dry-run"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`warning: ${hidden} keeps others out, so ${USER} may not read ${copy}`);
  });
});
