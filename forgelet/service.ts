/**
 * `forgelet install-service`: makes this host run forgelet under systemd as a dedicated user. It creates
 * the user (a system account without a shell) when missing, moves the enrolled credential into the state
 * directory with that user as its owner, writes the proxy environment file once and the unit every time,
 * and says what to run next. `--dry-run` only prints what it would do.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { writeFileAtomic } from "../contract/node-files.js";
import { RUNTIMES } from "./doctor-runtimes.js";
import {
  DEFAULT_ENV_FILE,
  DEFAULT_STATE_DIR,
  DEFAULT_UNIT_DIR,
  DEFAULT_USER,
  plainPath,
  renderEnvFile,
  renderUnit,
  UNIT_NAME,
} from "./service-unit.js";
import { CREDENTIAL_FILE, forgeletSettings } from "./settings.js";

export const SERVICE_HELP = `  forgelet install-service --runtime process|docker|slurm|kuberay [options] [-- RUN FLAGS...]
      Run forgelet under systemd: writes ${DEFAULT_UNIT_DIR}/${UNIT_NAME} (Restart=on-failure, a dedicated
      user, state in ${DEFAULT_STATE_DIR}), creates that user if missing (useradd --system), copies the
      enrolled credential into the state directory (owner: that user, mode 0600) and writes the proxy
      environment file from this shell's HTTPS_PROXY / HTTP_PROXY / NO_PROXY (kept if it exists).
      Flags after -- go to \`forgelet run\` as they are (e.g. -- --advertise-addr 10.0.4.17). Needs root.
        --user NAME            the service's user (default ${DEFAULT_USER}); --group NAME its group
        --state-dir DIR        the agent's state (default ${DEFAULT_STATE_DIR})
        --unit-dir DIR         where the unit goes (default ${DEFAULT_UNIT_DIR})
        --environment-file F   the environment file (default ${DEFAULT_ENV_FILE})
        --credential FILE      the credential to install (default: the one \`forgelet enroll\` saved)
        --node PATH            node to run (default: this one, ${process.execPath})
        --forgelet PATH        forgelet file to run (default: this one)
        --dry-run              print the unit and the steps; change nothing
`;

const USER_RE = /^[a-z_][a-z0-9_-]{0,31}$/;

export async function installServiceCommand(argv: string[], version: string): Promise<void> {
  const dash = argv.indexOf("--");
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const runArgs = dash < 0 ? [] : argv.slice(dash + 1);
  const { values } = parseArgs({
    args: own,
    options: {
      runtime: { type: "string" },
      user: { type: "string", default: DEFAULT_USER },
      group: { type: "string" },
      "state-dir": { type: "string", default: DEFAULT_STATE_DIR },
      "unit-dir": { type: "string", default: DEFAULT_UNIT_DIR },
      // Not --env-file: Node 20 takes that flag for itself wherever it appears on the command line, even
      // after the script, and exits 9 when the file does not exist yet.
      "environment-file": { type: "string", default: DEFAULT_ENV_FILE },
      credential: { type: "string" },
      node: { type: "string" },
      forgelet: { type: "string" },
      "dry-run": { type: "boolean", default: false },
    },
  });
  const runtime = values.runtime;
  if (!runtime || !(RUNTIMES as readonly string[]).includes(runtime)) {
    throw new Error(
      `choose the runtime the service runs: --runtime process, docker, slurm or kuberay${runtime ? ` (not "${runtime}")` : ""}`,
    );
  }
  const user = values.user;
  if (!USER_RE.test(user))
    throw new Error(`--user ${user} is not a user name (lowercase letters, digits, _ and -)`);
  if (values.group !== undefined && !USER_RE.test(values.group)) {
    throw new Error(`--group ${values.group} is not a group name (lowercase letters, digits, _ and -)`);
  }
  const paths = {
    stateDir: values["state-dir"].replace(/\/+$/, ""),
    unitDir: values["unit-dir"],
    envFile: values["environment-file"],
    node: values.node ?? process.execPath,
    forgelet: values.forgelet ?? process.argv[1] ?? "",
  };
  const flagOf: Record<keyof typeof paths, string> = {
    stateDir: "state-dir",
    unitDir: "unit-dir",
    envFile: "environment-file",
    node: "node",
    forgelet: "forgelet",
  };
  for (const [key, p] of Object.entries(paths) as Array<[keyof typeof paths, string]>) {
    if (!isAbsolute(p) || !plainPath(p)) {
      throw new Error(`--${flagOf[key]} ${p} must be an absolute path without spaces, quotes or %`);
    }
  }
  for (const [flag, p] of [
    ["node", paths.node],
    ["forgelet", paths.forgelet],
  ] as const) {
    if (!existsSync(p)) throw new Error(`--${flag} ${p}: no such file`);
  }
  const forgelet = realpathSync(paths.forgelet);
  for (const a of runArgs) {
    if (
      a === "--runtime" ||
      a === "--state-dir" ||
      a.startsWith("--runtime=") ||
      a.startsWith("--state-dir=")
    ) {
      throw new Error(`${a} after -- would contradict install-service's own --runtime / --state-dir`);
    }
  }
  const dry = values["dry-run"];
  if (!dry && process.getuid?.() !== 0) {
    throw new Error(
      "install-service creates a user and writes under /etc: run it as root, or with --dry-run",
    );
  }
  const say = (m: string) => process.stdout.write(`${m}\n`);
  const act = dry ? (m: string) => say(`would ${m}`) : say;

  // Everything that can refuse is checked before anything is changed.
  const target = join(paths.stateDir, CREDENTIAL_FILE);
  const source = resolve(values.credential ?? join(forgeletSettings().home, CREDENTIAL_FILE));
  const refusals: string[] = [];
  if (!existsSync(source) && !existsSync(target)) {
    refusals.push(
      `no credential at ${source}: enroll first (forgelet enroll --server URL --token TOKEN), or pass --credential FILE`,
    );
  }
  if (values.group !== undefined && spawnSync("getent", ["group", values.group]).status !== 0) {
    refusals.push(
      `no group ${values.group} on this host: create it (groupadd --system ${values.group}) or leave out --group`,
    );
  }
  if (runtime === "docker" && spawnSync("getent", ["group", "docker"]).status !== 0) {
    refusals.push(
      "no docker group on this host: install Docker first (its package creates the group the socket belongs to)",
    );
  }
  if (refusals.length > 0) {
    if (!dry) throw new Error(refusals[0]);
    for (const r of refusals) say(`warning: ${r}`);
  }

  // The user, and its group (the one useradd --user-group makes, named after it).
  const exists = spawnSync("getent", ["passwd", user]).status === 0;
  const useradd = [
    "--system",
    "--user-group",
    "--home-dir",
    paths.stateDir,
    "--no-create-home",
    "--shell",
    "/usr/sbin/nologin",
    user,
  ];
  if (!exists) {
    act(`create the system user ${user}: useradd ${useradd.join(" ")}`);
    if (!dry) execFileSync("useradd", useradd, { stdio: "inherit" });
  }
  const group = values.group ?? (exists || !dry ? idOf("-gn", user) : user);

  // The credential: the state directory's own is kept (the running agent renews it there); another is
  // copied in only when there is none yet, or when --credential names it.
  const same = existsSync(target) && existsSync(source) && realpathSync(target) === realpathSync(source);
  const copy = !same && existsSync(source) && (values.credential !== undefined || !existsSync(target));
  act(`create ${paths.stateDir} (mode 0700, owner ${user}:${group})`);
  if (copy) act(`copy ${source} to ${target} (mode 0600, owner ${user}:${group})`);
  else if (existsSync(target)) act(`keep ${target} (owner ${user}:${group}, mode 0600)`);
  if (!dry) {
    const uid = Number(idOf("-u", user));
    const gid = Number(execFileSync("getent", ["group", group], { encoding: "utf8" }).split(":")[2]);
    mkdirSync(paths.stateDir, { recursive: true, mode: 0o700 });
    chownSync(paths.stateDir, uid, gid);
    chmodSync(paths.stateDir, 0o700);
    if (copy) copyFileSync(source, target);
    if (existsSync(target)) {
      chownSync(target, uid, gid);
      chmodSync(target, 0o600);
    }
  }

  // The environment file: written once; an operator's edits survive a re-install.
  const env = process.env;
  const envText = renderEnvFile(
    {
      httpsProxy: env.https_proxy || env.HTTPS_PROXY || undefined,
      httpProxy: env.http_proxy || env.HTTP_PROXY || undefined,
      noProxy: env.no_proxy ?? env.NO_PROXY ?? "",
    },
    env.NODE_EXTRA_CA_CERTS || undefined,
  );
  if (existsSync(paths.envFile)) {
    act(`keep ${paths.envFile} as it is`);
  } else {
    act(`write ${paths.envFile} (mode 0600)`);
    if (dry) process.stdout.write(indent(envText));
    else writeFileAtomic(paths.envFile, envText, 0o600);
  }

  const unitPath = join(paths.unitDir, UNIT_NAME);
  const unit = renderUnit({
    node: paths.node,
    forgelet,
    runtime,
    user,
    group,
    stateDir: paths.stateDir,
    envFile: paths.envFile,
    runArgs,
    version,
  });
  act(`write ${unitPath}`);
  if (dry) process.stdout.write(indent(unit));
  else {
    mkdirSync(dirname(unitPath), { recursive: true });
    writeFileAtomic(unitPath, unit, 0o644);
  }
  warnIfUnreadable(forgelet, user, say);
  say(
    [
      "",
      dry ? "then:" : "next:",
      "  systemctl daemon-reload",
      "  systemctl enable --now forgelet",
      "  journalctl -u forgelet -f            # the agent's log",
      `  sudo -u ${user} env FORGELET_HOME=${paths.stateDir} ${paths.node} ${forgelet} doctor --runtime ${runtime}`,
    ].join("\n"),
  );
}

function idOf(flag: "-u" | "-gn", user: string): string {
  return execFileSync("id", [flag, user], { encoding: "utf8" }).trim();
}

/** The service user must read the forgelet file: a copy under /root or a home directory often is not. */
function warnIfUnreadable(file: string, user: string, say: (m: string) => void): void {
  const blocked: string[] = [];
  if (!(statSync(file).mode & 0o004)) blocked.push(file);
  for (let d = dirname(file); d !== dirname(d); d = dirname(d)) {
    if (!(statSync(d).mode & 0o001)) blocked.push(d);
  }
  if (blocked.length > 0) {
    say(
      `warning: ${blocked[0]} keeps others out, so ${user} may not read ${file}: install it where everyone can read it, e.g. /usr/local/lib/forgelet/forgelet.mjs (mode 0755), and pass --forgelet`,
    );
  }
}

const indent = (text: string) => `${text.replace(/^/gm, "    ")}\n`;
