/**
 * Group commit per Durable Object: while one call of a kind to an object is in flight from this isolate,
 * the calls that arrive for the same object wait, and go together in the next call, which the object
 * serves in one turn and therefore one storage commit (decision 113). With nothing in flight a call goes
 * at once, unless the object's last call carried several requests (the lane is contended): then it waits
 * one turn of the event loop for the requests right behind it. A lone submit on a quiet lane waits for
 * nothing; under load the batch grows with the queue, and each admission pays a share of one RPC and one
 * commit instead of one of each.
 *
 * Each request stays its own: the object answers every input with its own settled result, one input's
 * refusal or exception is that input's alone, and a request carries its inputs out of its own context.
 * The next batch is sent by its first waiting request (its turn resolves in that request's context),
 * never by a request that has already answered; the sender keeps the call alive with `waitUntil`, so a
 * client that hangs up does not cancel the others' work riding with it.
 */

/** One input's outcome, as the object returns it. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Runs `serve` on each input, settling each on its own (an exception is that input's result). */
export async function settleEach<I, O>(
  inputs: I[],
  serve: (input: I) => Promise<O> | O,
): Promise<Settled<O>[]> {
  const out: Settled<O>[] = [];
  for (const input of inputs) {
    try {
      out.push({ ok: true, value: await serve(input) });
    } catch (error) {
      out.push({ ok: false, error });
    }
  }
  return out;
}

/**
 * A batch as it crosses the RPC boundary: JSON text, typed by what it holds. The batches are plain JSON
 * values (a JobSpec, ids, quotas, job views), and one JSON text each way costs less than the runtime's
 * structured clone of the same object graph (decision 115).
 */
export type Wire<T> = string & { readonly __wire?: T };

export function toWire<T>(value: T): Wire<T> {
  return JSON.stringify(value) as Wire<T>;
}

export function fromWire<T>(wire: Wire<T>): T {
  return JSON.parse(wire) as T;
}

/** An exception as it travels in a wire batch: its name and message (JSON has no Error). */
interface WireError {
  name: string;
  message: string;
}

/** The object's side: serves each input of the batch (as `settleEach`) and answers on the wire. */
export async function serveWire<I, O>(
  batch: Wire<I[]>,
  serve: (input: I) => Promise<O> | O,
): Promise<Wire<Settled<O>[]>> {
  const out = await settleEach(fromWire(batch), serve);
  return toWire(
    out.map((s): Settled<O> => {
      if (s.ok) return s;
      const e = s.error instanceof Error ? s.error : new Error(String(s.error));
      return { ok: false, error: { name: e.name, message: e.message } satisfies WireError };
    }),
  );
}

/** A `Sender.send` that calls an object's wire batch method (`serveWire` on its side). */
export function overWire<I, O>(
  call: (key: string, batch: Wire<I[]>) => Promise<Wire<Settled<O>[]>>,
): (key: string, inputs: I[]) => Promise<Settled<O>[]> {
  return (key, inputs) => call(key, toWire(inputs)).then(settledFromWire);
}

/** The caller's side: the answers of a wire batch, each exception an Error again. */
export function settledFromWire<O>(wire: Wire<Settled<O>[]>): Settled<O>[] {
  return fromWire(wire).map((s) => {
    if (s.ok) return s;
    const w = s.error as WireError;
    const error = new Error(w.message);
    error.name = w.name;
    return { ok: false, error };
  });
}

interface Waiting<I, O> {
  input: I;
  weight: number;
  done: { resolve(value: O): void; reject(error: unknown): void };
  result: Promise<O>;
  /** Resolves `myTurn`: this request is to send the next batch. */
  turn: () => void;
  myTurn: Promise<void>;
}

/** A waiting input with its result and its turn, both still open. */
function waiting<I, O>(input: I, weight: number): Waiting<I, O> {
  let done!: Waiting<I, O>["done"];
  let turn!: () => void;
  const result = new Promise<O>((resolve, reject) => {
    done = { resolve, reject };
  });
  const myTurn = new Promise<void>((resolve) => {
    turn = resolve;
  });
  return { input, weight, done, result, turn, myTurn };
}

interface Lane<I, O> {
  busy: boolean;
  waiting: Waiting<I, O>[];
  /** The last call carried more than one input: the object is contended. */
  contended: boolean;
}

export interface GroupLimits {
  /** The most inputs one call carries. */
  maxInputs: number;
  /** The most weight (jobs) one call carries; a heavier input still goes, alone. */
  maxWeight: number;
  /** How long a waiting request waits for the call in flight before it sends the waiting inputs itself. */
  stallMs: number;
}

/** How a request sends a batch from its own context. */
export interface Sender<I, O> {
  /** One batch to the object named `key`: one settled result per input, in order. */
  send(key: string, inputs: I[]): Promise<Settled<O>[]>;
  /** The request's `waitUntil`. */
  keepAlive(p: Promise<unknown>): void;
  /** Send this request's input alone and at once, waiting for no one (SF_GROUP_COMMIT=off). */
  alone?: boolean;
}

/** Idle lanes kept (for their contention) per isolate, at most. */
const MAX_LANES = 10_000;

export class GroupCommit<I, O> {
  private readonly lanes = new Map<string, Lane<I, O>>();

  constructor(private readonly limits: GroupLimits) {}

  /** `input` (of `weight` jobs) served by the object `key`, in the next batch to it. */
  async call(key: string, input: I, weight: number, via: Sender<I, O>): Promise<O> {
    const entry = waiting<I, O>(input, weight);
    if (via.alone) {
      // Group commit turned off: at once, alone, through the same batch method.
      this.sendBatch(key, [entry], via, () => undefined);
      return entry.result;
    }
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { busy: false, waiting: [], contended: false };
      this.lanes.set(key, lane);
    }
    lane.waiting.push(entry);
    if (lane.busy) {
      // Waiting for another request's call. Until this input is served the request must live even if its
      // client hangs up (its turn to send, and the inputs riding with it, depend on it), and the runtime
      // counts a request that waits on another request's I/O as hung unless it has an event of its own
      // pending: the watchdog is that event, and if the lane stalls (its sender gone) this request sends.
      via.keepAlive(entry.result.catch(() => undefined));
      const watchdog = setInterval(() => {
        if (lane.waiting.includes(entry)) this.sendNext(key, lane, via);
      }, this.limits.stallMs);
      const served = entry.result.then(
        () => undefined,
        () => undefined,
      );
      // Its turn to send the next batch, or its result if an earlier batch took it along.
      await Promise.race([entry.myTurn, served]);
      clearInterval(watchdog);
    } else if (lane.contended) {
      // The object's last call carried several requests: more are likely right behind this one. Wait one
      // turn of the event loop (a zero timer) before sending, and take them along.
      lane.busy = true;
      await new Promise((r) => setTimeout(r, 0));
    }
    if (lane.waiting.includes(entry)) this.sendNext(key, lane, via);
    return entry.result;
  }

  /** Sends the waiting inputs (up to the limits, at least one) as one call, from the current request. */
  private sendNext(key: string, lane: Lane<I, O>, via: Sender<I, O>): void {
    const batch: Waiting<I, O>[] = [];
    let weight = 0;
    while (lane.waiting.length > 0 && batch.length < this.limits.maxInputs) {
      const next = lane.waiting[0] as Waiting<I, O>;
      if (batch.length > 0 && weight + next.weight > this.limits.maxWeight) break;
      batch.push(next);
      weight += next.weight;
      lane.waiting.shift();
    }
    lane.busy = true;
    lane.contended = batch.length > 1;
    this.sendBatch(key, batch, via, () => {
      const next = lane.waiting[0];
      if (next) next.turn();
      else {
        lane.busy = false;
        // An idle lane is forgotten unless it is contended (the next call lingers); contended idle lanes
        // are forgotten too when the isolate has seen too many objects.
        if (!lane.contended || this.lanes.size > MAX_LANES) this.forget(key, lane);
      }
    });
  }

  private forget(key: string, lane: Lane<I, O>): void {
    if (this.lanes.get(key) === lane) this.lanes.delete(key);
  }

  /** One call carrying `batch`; each waiting request hears its own result; then `after`. */
  private sendBatch(key: string, batch: Waiting<I, O>[], via: Sender<I, O>, after: () => void): void {
    let call: Promise<Settled<O>[]>;
    try {
      call = via.send(
        key,
        batch.map((w) => w.input),
      );
    } catch (error) {
      // Thrown before any call left (a stub refused): every input of the batch hears it, and the lane goes on.
      call = Promise.reject(error);
    }
    const sent = call.then(
      (results) => {
        for (const [i, w] of batch.entries()) {
          const r = results[i];
          if (!r) w.done.reject(new Error(`group commit: no result for input ${i} of ${batch.length}`));
          else if (r.ok) w.done.resolve(r.value);
          else w.done.reject(r.error);
        }
      },
      (error: unknown) => {
        for (const w of batch) w.done.reject(error);
      },
    );
    via.keepAlive(sent.finally(after));
  }
}
