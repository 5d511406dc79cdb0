/**
 * Why a run failed (issue 29): a pure classifier over what ingest stores of a run — each rank's log lines
 * (with their sequence numbers and times), exit codes and signals, what the agent and the control plane saw
 * (a container OOM-killed, a node lost, a time limit, no progress, kernel messages) and the reported metrics —
 * to a stable class, the root-cause rank and the line the diagnosis rests on, a hint and the retry it calls
 * for. Across ranks the first failure in time wins, and known consequences (a collective timing out, a peer
 * gone, a launcher's summary, an abort after them) are never causes while a real failure exists.
 */

export const FAILURE_CLASSES = [
  "CUDA_OOM",
  "HOST_OOM",
  "NCCL_TIMEOUT",
  "NCCL_ERROR",
  "GPU_HARDWARE",
  "CUDA_ERROR",
  "NAN_LOSS",
  "HANG",
  "DATALOADER",
  "DISK_FULL",
  "IMPORT_ERROR",
  "FILE_NOT_FOUND",
  "HF_ACCESS",
  "NETWORK",
  "SIGNAL",
  "TIMEOUT",
  "NODE_LOST",
  "USER_EXCEPTION",
  "UNKNOWN",
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

export interface DiagnosisLine {
  seq: number;
  /** Seconds since the run started (any monotonic clock the ranks share). */
  t?: number;
  stream?: string;
  text: string;
}

export interface DiagnosisInput {
  ranks: ReadonlyArray<{
    rank: number;
    node?: string | null;
    exit_code: number | null;
    signal?: string | null;
    lines: readonly DiagnosisLine[];
  }>;
  events?: ReadonlyArray<{
    kind: "oom_killed" | "node_lost" | "max_runtime" | "no_progress" | "kernel";
    rank?: number;
    t?: number;
    text?: string;
  }>;
  metrics?: ReadonlyArray<{ rank: number; step: number; key: string; value: number | string }>;
}

/** An admin's rule as the classifier tries it, before its own (contract/diagnosis-policy.ts DiagnosisRule). */
export interface CustomRule {
  re?: RegExp;
  exit_code?: number;
  cls: FailureClass;
}

export interface Diagnosis {
  class: FailureClass;
  rank: number | null;
  node: string | null;
  /** The line it rests on (rank and sequence number: the console jumps to it), or null. */
  line: { rank: number; seq: number; text: string } | null;
  /** Why, in a sentence (the exception's message where there is one). */
  summary: string;
  /** The admin rule that decided it (its index in the rules given), if one did. */
  rule?: number;
}

/** A pattern of a class in one log line (or kernel message); `echo`: a consequence of another rank's failure. */
interface Rule {
  cls: FailureClass;
  re: RegExp;
  echo?: boolean;
}

/** Most specific first: the first rule a line matches is its class. */
const RULES: readonly Rule[] = [
  // The driver and the kernel.
  { cls: "GPU_HARDWARE", re: /\bXid\b.*?:\s*(?:79|48|63|64|74|92|94|95|119|120)\b/i },
  {
    cls: "GPU_HARDWARE",
    re: /fallen off the bus|uncorrectable ECC error|double bit error|\bDBE\b|ECC page retirement|row.?remapping failure/i,
  },
  {
    cls: "HOST_OOM",
    re: /Out of memory: Kill(ed)? process|oom-kill:|oom_reaper|invoked oom-killer|Memory cgroup out of memory/i,
  },
  // CUDA.
  {
    cls: "CUDA_OOM",
    re: /CUDA out of memory|OutOfMemoryError: CUDA|CUBLAS_STATUS_ALLOC_FAILED|cudaErrorMemoryAllocation|out of memory.*\bCUDA\b/i,
  },
  {
    cls: "CUDA_ERROR",
    re: /illegal memory access|device-side assert|CUDA error: (?!out of memory)|CUDA kernel errors|cudaError(?!MemoryAllocation)\w+|CUBLAS_STATUS_(?!ALLOC)\w+|CUDNN_STATUS_\w+|Assertion `.*` failed/i,
  },
  // The DataLoader, before the signals and memory it mentions.
  {
    cls: "DATALOADER",
    re: /DataLoader worker \(pid[^)]*\) (is killed|exited unexpectedly)|insufficient shared memory|bus error encountered in worker|DataLoader timed out/i,
  },
  { cls: "DISK_FULL", re: /No space left on device|\[Errno 28\]|Disk quota exceeded|\[Errno 122\]/i },
  {
    cls: "HF_ACCESS",
    re: /GatedRepoError|RepositoryNotFoundError|RevisionNotFoundError|gated repo|huggingface\.co\S*.*\b(401|403)\b|\b(401|403) Client Error.*huggingface|Invalid (user )?token.*hugging|LocalEntryNotFoundError/i,
  },
  { cls: "IMPORT_ERROR", re: /^\s*(ModuleNotFoundError|ImportError)\b|No module named ['"]?[\w.]+/ },
  {
    cls: "FILE_NOT_FOUND",
    re: /FileNotFoundError|\[Errno 2\] No such file or directory|does not appear to have a file named|No such file or directory: ['"]/,
  },
  // The collectives: an NCCL failure of its own is a cause; a timeout or a peer gone is usually an echo.
  {
    cls: "NCCL_TIMEOUT",
    re: /Watchdog caught collective operation timeout|collective operation timeout|ran for \d+ milliseconds before timing out|NCCL.*timed? ?out|Timed out waiting .* for the (store|collective)/i,
    echo: true,
  },
  {
    cls: "NCCL_ERROR",
    re: /(?:gloo|nccl|c10d|ProcessGroup|TCPStore|torch\.distributed)[^\n]*(?:Connection reset|Broken pipe|Connection refused)|remote process exited|Connection closed by peer|DistBackendError|Some NCCL operations have failed or timed out|ncclRemoteError|NCCL communicator was aborted|ChildFailedError|Root Cause \(first observed failure\)|process group.*(aborted|shut ?down)|Received SIGTERM|Sending process \d+ closing signal|SignalException|failed \(exitcode: -?\d+\) local_rank/i,
    echo: true,
  },
  {
    cls: "NCCL_ERROR",
    re: /\bncclInternalError|\bncclSystemError|\bncclUnhandledCudaError|\bncclInvalidUsage|NCCL WARN|NCCL error/i,
  },
  {
    cls: "NETWORK",
    re: /ConnectionError|Max retries exceeded|NewConnectionError|Temporary failure in name resolution|Name or service not known|gaierror|Connection (refused|reset by peer|timed out)|ReadTimeout|ConnectTimeout|Network is unreachable|SSLError/i,
  },
  {
    cls: "SIGNAL",
    re: /Segmentation fault|Fatal Python error|Bus error \(core dumped\)|Aborted \(core dumped\)|core dumped/i,
  },
];

/** The last line of a Python traceback: `pkg.mod.SomeError: message` (or a bare `SomeError`). */
const EXCEPTION_LINE =
  /^\s*(?:\[rank\d+\]:\s*)?((?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning)?)(?::\s(.*))?$/;
const TRACEBACK_START = /Traceback \(most recent call last\)/;

interface Finding {
  cls: FailureClass;
  rank: number | null;
  seq: number | null;
  t: number;
  echo: boolean;
  text: string;
  /** Rules are specific; a traceback's exception is the general fallback of its rank. */
  general?: boolean;
  /** The final line of a traceback (the exception raised): the line a diagnosis of its class rests on. */
  final?: boolean;
}

/** Matches a line against the rules: its class, if any. */
export function classifyLine(text: string): Rule | null {
  for (const r of RULES) if (r.re.test(text)) return r;
  return null;
}

function lineFindings(rank: number, lines: readonly DiagnosisLine[]): Finding[] {
  const out: Finding[] = [];
  let inTraceback = false;
  let lastT = 0;
  for (const l of lines) {
    const t = l.t ?? lastT;
    lastT = t;
    if (TRACEBACK_START.test(l.text)) inTraceback = true;
    // A traceback's frames and source lines name code, not what happened.
    const frame = inTraceback && /^\s/.test(l.text.replace(/^\[rank\d+\]: ?/, ""));
    if (frame) continue;
    const final = inTraceback && EXCEPTION_LINE.test(l.text) && !l.text.startsWith("Traceback");
    const rule = classifyLine(l.text);
    if (rule) {
      out.push({ cls: rule.cls, rank, seq: l.seq, t, echo: rule.echo ?? false, text: l.text.trim(), final });
      if (final) inTraceback = false;
      continue;
    }
    // A traceback's final line names its exception: any other exception is the user's code.
    if (inTraceback && !/^\s/.test(l.text) && !l.text.startsWith("Traceback")) {
      const m = EXCEPTION_LINE.exec(l.text);
      if (
        m &&
        /(Error|Exception|Exit|Interrupt)$/.test(m[1]!) &&
        !/^(KeyboardInterrupt|SystemExit)$/.test(m[1]!)
      ) {
        out.push({
          cls: "USER_EXCEPTION",
          rank,
          seq: l.seq,
          t,
          echo: false,
          text: l.text.trim(),
          general: true,
        });
        inTraceback = false;
      }
    }
  }
  return out;
}

/** NaN or infinity in a reported loss, or in a progress line's loss. */
function nanFindings(input: DiagnosisInput): Finding[] {
  const out: Finding[] = [];
  for (const m of input.metrics ?? []) {
    if (!/loss/i.test(m.key)) continue;
    const v = typeof m.value === "number" ? m.value : Number(m.value);
    if (!Number.isFinite(v)) {
      out.push({
        cls: "NAN_LOSS",
        rank: m.rank,
        seq: null,
        t: Number.POSITIVE_INFINITY,
        echo: false,
        text: `${m.key} = ${m.value} at step ${m.step}`,
      });
    }
  }
  for (const r of input.ranks) {
    for (const l of r.lines) {
      if (
        /\bloss\b["']?\s*[:=|]?\s*["']?(nan|inf|-inf|infinity)\b/i.test(l.text) ||
        /\bloss\b[^,\n]{0,20}\b(nan|inf)\b/i.test(l.text)
      ) {
        out.push({
          cls: "NAN_LOSS",
          rank: r.rank,
          seq: l.seq,
          t: l.t ?? 0,
          echo: false,
          text: l.text.trim(),
        });
        break;
      }
    }
  }
  return out;
}

/** What the rank's exit says when its log says nothing telling. */
function exitFinding(r: DiagnosisInput["ranks"][number], t: number): Finding | null {
  const code = r.exit_code;
  const sig = r.signal ?? null;
  const bySignal =
    sig !== null || (code !== null && (code > 128 || code < 0) && ![130, 143, -15, -2].includes(code));
  if (!bySignal) return null;
  if (sig === "SIGTERM" || code === 143 || code === -15) return null;
  return { cls: "SIGNAL", rank: r.rank, seq: null, t, echo: false, text: sig ?? `exit code ${code}` };
}

const SUMMARY: Record<FailureClass, string> = {
  CUDA_OOM: "a rank ran out of GPU memory",
  HOST_OOM: "a rank ran out of host memory (killed by the kernel's OOM killer)",
  NCCL_TIMEOUT: "a collective operation timed out",
  NCCL_ERROR: "the collective communication (NCCL) failed",
  GPU_HARDWARE: "a GPU failed (driver Xid / uncorrectable ECC)",
  CUDA_ERROR: "a CUDA error (illegal memory access or device-side assert)",
  NAN_LOSS: "the loss became NaN or infinite",
  HANG: "the run stopped making progress",
  DATALOADER: "a DataLoader worker died",
  DISK_FULL: "the disk is full",
  IMPORT_ERROR: "a Python module could not be imported",
  FILE_NOT_FOUND: "a file the job needs does not exist",
  HF_ACCESS: "the HuggingFace Hub refused access (gated or missing repo, or a bad token)",
  NETWORK: "a network connection failed",
  SIGNAL: "a rank was killed by a signal",
  TIMEOUT: "the run reached its max_runtime_seconds",
  NODE_LOST: "a node was lost",
  USER_EXCEPTION: "the training code raised an exception",
  UNKNOWN: "no known cause in the logs",
};

/**
 * The cause as the diagnosis states it: a GPU that failed explains the CUDA and NCCL errors of its rank
 * (its Xid may reach the log after them); a failure rests on the exception its rank raised (a traceback's
 * final line) rather than a warning before it; a cause seen only by the kernel rests on its rank's first
 * CUDA error line, if it logged one.
 */
function anchored(f: Finding, all: readonly Finding[], input: DiagnosisInput): Finding {
  const sameRank = all.filter((g) => g.rank === f.rank && !g.echo);
  let cause = f;
  if (["CUDA_ERROR", "NCCL_ERROR", "SIGNAL", "USER_EXCEPTION"].includes(f.cls)) {
    const hw = sameRank.find((g) => g.cls === "GPU_HARDWARE");
    if (hw) cause = hw;
  }
  const final = sameRank.find((g) => g.cls === cause.cls && g.final && g.seq !== null);
  if (final) return { ...cause, seq: final.seq, text: final.text };
  if (cause.seq === null && cause.rank !== null) {
    const lines = input.ranks.find((r) => r.rank === cause.rank)?.lines ?? [];
    const cuda = lines.find((l) => /CUDA error|cudaError|unspecified launch failure/i.test(l.text));
    if (cuda) return { ...cause, seq: cuda.seq, text: cuda.text.trim() };
  }
  if (cause.cls === "HOST_OOM" && cause.rank !== null) {
    const killed = input.ranks
      .find((r) => r.rank === cause.rank)
      ?.lines.find((l) => /Killed process/i.test(l.text));
    if (killed) return { ...cause, seq: killed.seq, text: killed.text.trim() };
  }
  return cause;
}

/**
 * The earliest line or exit an admin's rule names: rules are tried before the built-in ones, so any match
 * decides (the first in time; at one time, the first rule).
 */
function customFinding(
  input: DiagnosisInput,
  rules: readonly CustomRule[],
): (Finding & { rule: number }) | null {
  let best: (Finding & { rule: number }) | null = null;
  const better = (f: Finding & { rule: number }) =>
    !best || f.t < best.t || (f.t === best.t && f.rule < best.rule);
  for (const r of input.ranks) {
    let lastT = 0;
    for (const l of r.lines) {
      const t = l.t ?? lastT;
      lastT = t;
      const i = rules.findIndex((c) => c.re?.test(l.text));
      const rule = rules[i];
      if (!rule) continue;
      const f = {
        cls: rule.cls,
        rank: r.rank,
        seq: l.seq,
        t,
        echo: false,
        text: l.text.trim(),
        general: true,
        rule: i,
      };
      if (better(f)) best = f;
      break;
    }
    const i = rules.findIndex((c) => c.exit_code !== undefined && c.exit_code === r.exit_code);
    const rule = rules[i];
    if (rule) {
      const f = {
        cls: rule.cls,
        rank: r.rank,
        seq: null,
        t: lastT,
        echo: false,
        text: `exit code ${r.exit_code}`,
        rule: i,
      };
      if (better(f)) best = f;
    }
  }
  return best;
}

/** The diagnosis of a failed (or stopped as hung) run; an admin's `rules` are tried first. Pure. */
export function diagnose(input: DiagnosisInput, rules: readonly CustomRule[] = []): Diagnosis {
  const nodeOf = (rank: number | null) => input.ranks.find((r) => r.rank === rank)?.node ?? null;
  const events = input.events ?? [];
  const verdict = (f: Finding): Diagnosis => ({
    class: f.cls,
    rank: f.rank,
    node: nodeOf(f.rank),
    line: f.seq === null || f.rank === null ? null : { rank: f.rank, seq: f.seq, text: f.text },
    summary: f.general ? `${SUMMARY[f.cls]}: ${f.text}` : SUMMARY[f.cls],
  });
  const custom = rules.length > 0 ? customFinding(input, rules) : null;
  if (custom) return { ...verdict(custom), rule: custom.rule };
  const findings: Finding[] = [];
  for (const r of input.ranks) findings.push(...lineFindings(r.rank, r.lines));
  for (const e of events) {
    const t = e.t ?? 0;
    if (e.kind === "kernel" && e.text) {
      const rule = classifyLine(e.text);
      if (rule)
        findings.push({ cls: rule.cls, rank: e.rank ?? null, seq: null, t, echo: false, text: e.text });
    } else if (e.kind === "oom_killed") {
      findings.push({
        cls: "HOST_OOM",
        rank: e.rank ?? null,
        seq: null,
        t: e.t ?? Number.POSITIVE_INFINITY,
        echo: false,
        text: "OOM-killed",
      });
    } else if (e.kind === "node_lost") {
      findings.push({ cls: "NODE_LOST", rank: e.rank ?? null, seq: null, t, echo: false, text: "node lost" });
    }
  }
  findings.push(...nanFindings(input));
  const real = findings.filter((f) => !f.echo);
  // A time limit or a hang the control plane saw ends the run whatever the logs say after it.
  const limit = events.find((e) => e.kind === "max_runtime");
  const hang = events.find((e) => e.kind === "no_progress");
  const before = (e: { t?: number } | undefined) => (f: Finding) => e?.t === undefined || f.t <= e.t;
  if (limit && !real.some(before(limit)))
    return { class: "TIMEOUT", rank: null, node: null, line: null, summary: SUMMARY.TIMEOUT };
  if (hang && !real.some(before(hang)))
    return { class: "HANG", rank: null, node: null, line: null, summary: SUMMARY.HANG };
  const pick = (fs: Finding[]): Finding | undefined =>
    [...fs].sort((a, b) => a.t - b.t || Number(a.general ?? false) - Number(b.general ?? false))[0];
  // A rank's specific finding beats the generic exception of its own traceback.
  const specific = real.filter((f) => !f.general || !real.some((g) => g.rank === f.rank && !g.general));
  const found = pick(specific) ?? pick(findings);
  if (found) return verdict(anchored(found, findings, input));
  // Nothing in the logs: what the exits say.
  const lastT = Math.max(0, ...input.ranks.flatMap((r) => r.lines.map((l) => l.t ?? 0)));
  const exits = input.ranks.flatMap((r) => {
    const f = exitFinding(r, lastT);
    return f ? [f] : [];
  });
  if (exits[0]) return verdict(exits[0]);
  const failed = input.ranks.find((r) => r.exit_code !== null && r.exit_code !== 0);
  return {
    class: "UNKNOWN",
    rank: failed?.rank ?? null,
    node: nodeOf(failed?.rank ?? null),
    line: null,
    summary: SUMMARY.UNKNOWN,
  };
}
