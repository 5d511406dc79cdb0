// System calls per admission: `node scripts/bench/syscalls.mjs [--clients N] [--submits N]` (needs strace).
// Starts the control plane on workerd (as the admissions benchmark does), warms it up, then counts every
// system call workerd makes (`strace -c -f`) while N clients submit, and prints the counts per admission:
// the WAL writes (`pwrite64`), syncs (`fsync`) and file locks (`fcntl`) of every Durable Object and D1
// commit, the reads, the socket traffic. Unlike CPU time on a shared machine, these counts repeat from run
// to run, so a change to what a commit writes can be measured before and after (docs/decisions.md 112).
// strace slows workerd several times over: the rate printed is not the benchmark's, and a flush carries
// fewer admissions than at full speed, so the projection's share per admission is larger here.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { benchSubmitter } from "./setup.mjs";
import { startWorkerd } from "./workerd.mjs";

const { values: opts } = parseArgs({
  options: {
    clients: { type: "string", default: "8" },
    submits: { type: "string", default: "3000" },
  },
});
const log = (m) => process.stderr.write(`syscalls: ${m}\n`);

/** The workerd processes this process started (Miniflare's children). */
function workerdPids() {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        return ppid === process.pid && readFileSync(`/proc/${p}/cmdline`, "utf8").includes("workerd");
      } catch {
        return false;
      }
    });
}

/** `strace -c` summary rows: { syscall: calls }. */
function parseSummary(text) {
  const out = {};
  for (const line of text.split("\n")) {
    const m = line.trim().match(/^[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$/);
    if (m && m[2] !== "total") out[m[2]] = Number(m[1]);
  }
  return out;
}

const w = await startWorkerd({ vars: { SF_LOG_LEVEL: "warn" } });
try {
  const [pid] = workerdPids();
  if (!pid) throw new Error("no workerd process found among this process's children");
  const submits = await benchSubmitter(w, "sys", Number(opts.clients));
  log("warming up (300 submits)");
  await submits(300);
  const strace = spawn("strace", ["-c", "-f", "-p", pid], { stdio: ["ignore", "ignore", "pipe"] });
  let summary = "";
  strace.stderr.on("data", (d) => {
    summary += d;
  });
  await new Promise((r) => setTimeout(r, 500));
  const total = Number(opts.submits);
  log(`counting ${total} submits at ${opts.clients} client(s)`);
  const point = await submits(total);
  // What the point admitted reaches D1 and the user's object: the projection is part of an admission.
  await new Promise((r) => setTimeout(r, 1500));
  const ended = new Promise((r) => strace.on("exit", r));
  strace.kill("SIGINT");
  await ended;
  const calls = parseSummary(summary);
  console.log(`${total} submits at ${opts.clients} client(s), ${point.rate}/s under strace`);
  console.log("system calls per admission (projection included):");
  for (const [name, n] of Object.entries(calls).sort((a, b) => b[1] - a[1]))
    console.log(`${(n / total).toFixed(2).padStart(9)}  ${name}`);
} finally {
  await w.stop();
}
