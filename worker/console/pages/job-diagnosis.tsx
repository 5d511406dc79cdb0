/** @jsxImportSource hono/jsx */
/**
 * Why a job's run failed (issue 29), at the top of the job page: the class, the summary, the root-cause
 * rank and node, the log line it rests on with a link to that line in the Logs tab, the hint and what
 * was done about it. Until the diagnosis arrives (a few seconds after the run failed: the FAILED event's
 * detail says `diagnosis: "pending"`) the block says "Diagnosing…"; client/live.ts swaps in the block
 * from a fresh copy of the page when it lands. The summary and the line are the run's own log text: they
 * go into the page as JSX text, so escaped.
 */
import type { Child, FC } from "hono/jsx";
import { type Diagnosis, diagnosisOf, type JobDetail, type RunSummary } from "../job-data.js";
import { Time } from "../layout.js";

type Shown =
  | { kind: "none" }
  | { kind: "pending" }
  | { kind: "diagnosed"; diagnosis: Diagnosis; run: RunSummary };

/** The FAILED event's detail while its diagnosis is on its way (durable-objects/fleet/rules/diagnosis.ts). */
const PENDING = "pending";

/**
 * What the top of the page says about the latest run: its stored diagnosis; else, for a FAILED job, what
 * the FAILED event says (pending, or the diagnosis when the event was rewritten before the run's row); a
 * job that failed before diagnoses existed, or without a run, shows nothing.
 */
export function latestDiagnosis(detail: JobDetail): Shown {
  const run = detail.runs.at(-1);
  if (!run) return { kind: "none" };
  const stored = diagnosisOf(run.diagnosis);
  if (stored) return { kind: "diagnosed", diagnosis: stored, run };
  if (detail.job.status !== "FAILED") return { kind: "none" };
  const failed = [...detail.events].reverse().find((e) => e.to === "FAILED");
  const said =
    failed?.detail !== null && typeof failed?.detail === "object"
      ? (failed.detail as { diagnosis?: unknown }).diagnosis
      : undefined;
  if (said === PENDING) return { kind: "pending" };
  const fromEvent = diagnosisOf(said);
  return fromEvent ? { kind: "diagnosed", diagnosis: fromEvent, run } : { kind: "none" };
}

/**
 * The Logs tab at the diagnosed line: that rank's lines around the line's run-wide cursor (`at`), the
 * line highlighted and scrolled to (its element's id is the fragment). A line not yet released to
 * readers has no cursor: the link opens the rank's log.
 */
export function lineHref(jobId: string, runId: string, line: NonNullable<Diagnosis["line"]>): string {
  const base = `/console/jobs/${encodeURIComponent(jobId)}/logs?run=${encodeURIComponent(runId)}&rank=${line.rank}`;
  return line.cursor === null ? base : `${base}&at=${line.cursor}#log-${line.cursor}`;
}

function rootCause(d: Diagnosis): string {
  if (d.rank === null) return d.node ? `node ${d.node}` : "not one rank in particular";
  return d.node ? `rank ${d.rank} on node ${d.node}` : `rank ${d.rank}`;
}

function sentence(s: string): string {
  return s ? `${s[0]!.toUpperCase()}${s.slice(1)}` : s;
}

const Fact: FC<{ term: string; children?: Child }> = ({ term, children }) => (
  <div>
    <dt>{term}</dt>
    <dd>{children}</dd>
  </div>
);

const Diagnosed: FC<{ detail: JobDetail; run: RunSummary; d: Diagnosis }> = ({ detail, run, d }) => (
  <section
    class="diagnosis"
    aria-labelledby="diagnosis-h"
    data-diagnosis={d.class}
    data-run={run.id}
    data-policy={d.action.policy}
  >
    <h2 id="diagnosis-h">
      {"Why it failed "}
      <span class="diag-class" data-diagnosis-class="">
        {d.class}
      </span>
    </h2>
    <p class="diag-summary">{sentence(d.summary)}</p>
    <dl class="diag-facts">
      <Fact term="Root cause">{rootCause(d)}</Fact>
      {detail.runs.length > 1 ? <Fact term="Run">{`attempt ${run.attempt}`}</Fact> : null}
      <Fact term="Diagnosed">
        <Time iso={d.diagnosed_at} />
      </Fact>
    </dl>
    {d.line ? (
      <figure class="diag-line">
        <figcaption>{`The line it rests on (rank ${d.line.rank}, ${d.line.stream}):`}</figcaption>
        <pre>
          <code>{d.line.text}</code>
        </pre>
        <a href={lineHref(detail.job.id, run.id, d.line)} data-diagnosis-line="">
          {d.line.cursor === null
            ? `Open rank ${d.line.rank}'s log`
            : `Show this line in rank ${d.line.rank}'s log`}
        </a>
      </figure>
    ) : (
      <p class="note">
        No log line shows the cause; the class rests on the ranks' exits and what the fleet saw.
      </p>
    )}
    <p class="diag-hint">
      <strong>What to change: </strong>
      {d.hint}
    </p>
    <p class="diag-action">
      <strong>What was done: </strong>
      {sentence(d.action.why)}
      {d.action.why.endsWith(".") ? "" : "."}
      {d.action.cordoned ? (
        <>
          {" Node "}
          <strong data-cordoned="">{d.action.cordoned}</strong>
          {" was cordoned: it takes no new work until an admin has checked it and uncordons it."}
        </>
      ) : null}
    </p>
    {d.from_logs ? null : (
      <p class="note">
        The run's logs could not be read in time: this rests on its exit codes and events alone.
      </p>
    )}
    {d.rule !== null ? (
      <p class="note">{`The class comes from the fleet's diagnosis rule ${d.rule + 1} (rules[${d.rule}]).`}</p>
    ) : null}
  </section>
);

const Pending: FC = () => (
  <section class="diagnosis diagnosing" aria-labelledby="diagnosis-h" data-diagnosis="pending">
    <h2 id="diagnosis-h">Diagnosing…</h2>
    <p class="note">
      The run failed; its ranks' last log lines and exits are being read for the cause, which takes a few
      seconds. It appears here when it is ready (reload the page if its script is off).
    </p>
  </section>
);

/**
 * The block's place in the header, there even when empty: the script compares its data-diagnosed-at with
 * the API's and replaces the slot when they differ.
 */
export const DiagnosisSlot: FC<{ detail: JobDetail }> = ({ detail }) => {
  const shown = latestDiagnosis(detail);
  return (
    <div
      class="diagnosis-slot"
      data-diagnosis-slot=""
      data-diagnosed-at={shown.kind === "diagnosed" ? shown.diagnosis.diagnosed_at : ""}
    >
      {shown.kind === "pending" ? <Pending /> : null}
      {shown.kind === "diagnosed" ? <Diagnosed detail={detail} run={shown.run} d={shown.diagnosis} /> : null}
    </div>
  );
};

/** A run's class in the run list, for runs with a diagnosis. */
export const RunClass: FC<{ run: RunSummary }> = ({ run }) => {
  const d = diagnosisOf(run.diagnosis);
  return d ? (
    <>
      {" "}
      <span class="diag-class small" data-run-diagnosis={d.class} title={d.summary}>
        {d.class}
      </span>
    </>
  ) : null;
};
