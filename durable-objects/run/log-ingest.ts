/**
 * A batch of log lines into the Run DO's store. With `seq` (stdout/stderr), chunk i is the line with seq
 * `seq + i`; without it (console text) the chunks are split into lines that continue after the stream's
 * highest seq. Each line is stored masked with the run's secrets (`SecretMasks`) and released in seq
 * order (policy.ts).
 */
import { MAX_LOG_LINE } from "../../contract/ingest.schema.js";
import { secretKeyring } from "../../d1/secret-box.js";
import { openSecrets, type SecretRow } from "../../d1/secrets.js";
import type { DoEnv } from "../env.js";
import { doSettings } from "../settings.js";
import { maskNeedles, maskText } from "./mask.js";
import { consoleLines } from "./policy.js";
import type { RunStore } from "./store.js";
import type { LogsAccepted, LogsIngest } from "./types.js";

/** Stores one batch inside the caller's transaction; `ended`: the run is over. */
export function storeLogBatch(
  store: RunStore,
  batch: LogsIngest,
  masks: readonly string[],
  now: number,
  ended: boolean,
): LogsAccepted {
  const s = store.stream(batch.rank, batch.stream);
  const first = batch.seq ?? s.high_seq;
  const lines =
    batch.seq === null
      ? batch.chunks
          .flatMap((c) => consoleLines(c.text, MAX_LOG_LINE))
          .map((text, i) => ({ seq: first + i, text }))
      : batch.chunks.map((c) => ({ seq: first + c.index, text: c.text }));
  let accepted = 0;
  for (const { seq, text } of lines) {
    if (!store.insertLine(s, seq, now, masks.length ? maskText(text, masks) : text)) continue;
    accepted += 1;
    // A line below next_seq arrived after its hole was given up on: shown now rather than lost.
    if (seq < s.next_seq) store.release(s, seq, store.takeCursor());
    else s.held += 1;
  }
  // One past the batch's last line (rejected chunks of a sequenced batch keep their seq numbers).
  const end = first + (batch.seq === null ? lines.length : batch.count);
  s.high_seq = Math.max(s.high_seq, end);
  if (batch.eof) s.eof_seq = end;
  store.releaseStream(s, now, ended);
  store.saveStream(s);
  return {
    accepted,
    duplicates: lines.length - accepted,
    first_seq: first,
    released_to: s.next_seq,
    held: s.held,
  };
}

/** The run's secret values to mask in its logs, sealed in its meta (RunDO.maskSecrets). */
export class SecretMasks {
  /** Opened on first use; null = not loaded yet. */
  private masks: string[] | null = null;

  constructor(
    private readonly store: RunStore,
    private readonly env: DoEnv,
  ) {}

  /** What to mask, opened once per object lifetime; a run without secrets has nothing to open. */
  async get(): Promise<string[]> {
    if (this.masks) return this.masks;
    const stored = this.store.getMeta("secret_masks");
    if (!stored) return [];
    const s = doSettings(this.env);
    const ring = secretKeyring(s.secretsKey, s.secretsOldKeys);
    // Without the key that sealed them the values cannot be masked: refuse the lines (the writer retries)
    // rather than store a secret in clear.
    if (!ring) throw new Error("this run's logs hold secrets to mask, and SF_SECRETS_KEY is not set");
    this.masks = maskNeedles(Object.values(await openSecrets(await ring, JSON.parse(stored) as SecretRow[])));
    return this.masks;
  }

  /** Keeps the run's sealed secrets (inside the caller's transaction); `forget` once it committed. */
  seal(sealed: SecretRow[]): void {
    this.store.setMeta("secret_masks", JSON.stringify(sealed));
  }

  /** The sealed values changed: they are opened again on next use. */
  forget(): void {
    this.masks = null;
  }
}
