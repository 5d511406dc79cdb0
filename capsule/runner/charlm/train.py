"""charlm: a character-level language model in pure Python (no numpy, no torch).

The model is softmax regression: the next character's logits are a bias plus one learned row per
context position (the character ``i`` places back) plus one row for the pair of the last two
characters. That is a small, honest n-gram-style model that really learns English spelling: on the
shipped corpus the loss falls from ln(vocab) (~3.3 nats) to ~1.8 in the default 300 steps, in well
under a second of CPU.

Training is online SGD: each step draws ``batch_size`` random positions and updates the weights after
each character with step size ``learning_rate``. Updating per character (instead of averaging the
batch's gradient) keeps the step size meaningful whatever the batch size, and never diverges on a
large batch. Everything random comes from one ``random.Random(seed)`` whose state is saved in each
checkpoint, so a resumed run takes exactly the steps the uninterrupted run would have taken.

    python3 -m charlm.train --max_steps=300 --checkpoint_every=100
"""

import json
import math
import os
import random
import sys
import time

from starforge import report
from starforge._recipe import (
    StopFlag,
    atomic_write,
    checkpoint_path,
    corpus_text,
    parse_params,
    validate_positive,
)

FORMAT = "starforge.charlm/1"
# The catalog's python/charlm params (worker/catalog/builtin.ts), same names, types and defaults.
PARAMS = {
    "learning_rate": (float, 0.1, "SGD step size"),
    "max_steps": (int, 300, "optimizer steps to run"),
    "batch_size": (int, 32, "characters per step"),
    "context": (int, 2, "characters of context the model sees"),
    "checkpoint_every": (int, 100, "steps between checkpoints"),
    "seed": (int, 0, "random seed"),
}
LOG_EVERY = 10
VALIDATION_FRACTION = 0.1


class Model:
    def __init__(self, vocab, context):
        self.vocab = vocab
        self.V = len(vocab)
        self.context = context
        self.bias = [0.0] * self.V
        # position[i][c]: the logit row added when character c stands i+1 places before the target.
        self.position = [[[0.0] * self.V for _ in range(self.V)] for _ in range(context)]
        # pair[(c1 * V + c2)]: a row for the last two characters together (sparse: pairs seen so far).
        self.pair = {}

    def rows(self, ctx, create):
        """The weight rows that fire for a context (ctx[0] is the character just before the target)."""
        rows = [self.position[i][c] for i, c in enumerate(ctx)]
        if len(ctx) >= 2:
            key = ctx[0] * self.V + ctx[1]
            row = self.pair.get(key)
            if row is None and create:
                row = self.pair[key] = [0.0] * self.V
            if row is not None:
                rows.append(row)
        return rows

    def probs(self, ctx, create=False):
        rows = self.rows(ctx, create)
        z = self.bias[:]
        for row in rows:
            for j, w in enumerate(row):
                z[j] += w
        top = max(z)
        e = [math.exp(v - top) for v in z]
        total = sum(e)
        return [v / total for v in e], rows

    def sgd_step(self, ctx, target, lr):
        """One character: returns its cross-entropy loss and applies the gradient (p - onehot)."""
        p, rows = self.probs(ctx, create=True)
        loss = -math.log(max(p[target], 1e-300))
        p[target] -= 1.0
        for row in rows + [self.bias]:
            for j, g in enumerate(p):
                row[j] -= lr * g
        return loss

    def to_json(self):
        return {
            "vocab": "".join(self.vocab),
            "context": self.context,
            "bias": self.bias,
            "position": self.position,
            "pair": {str(k): v for k, v in sorted(self.pair.items())},
        }

    @classmethod
    def from_json(cls, d):
        m = cls(list(d["vocab"]), d["context"])
        m.bias = d["bias"]
        m.position = d["position"]
        m.pair = {int(k): v for k, v in d["pair"].items()}
        return m


def context_at(data, pos, context):
    return [data[pos - 1 - i] for i in range(context)]


def evaluate(model, data, context):
    """Mean loss over every position of the held-out text."""
    total = 0.0
    for pos in range(context, len(data)):
        p, _ = model.probs(context_at(data, pos, context))
        total -= math.log(max(p[data[pos]], 1e-300))
    return total / max(1, len(data) - context)


def sample(model, prompt, n, seed):
    """Text the model writes after ``prompt``: a human-readable sign of what it learned."""
    rng = random.Random(seed)  # its own RNG: sampling must not change the training's draws
    index = {c: i for i, c in enumerate(model.vocab)}
    out = [index[c] for c in prompt if c in index]
    for _ in range(n):
        p, _ = model.probs(context_at(out, len(out), model.context))
        out.append(rng.choices(range(model.V), weights=p)[0])
    return "".join(model.vocab[i] for i in out)


def save(model, step, rng, params, train_loss):
    path = checkpoint_path(step, "json")
    state = {"format": FORMAT, "step": step, "params": params, "train_loss": train_loss}
    # The RNG state makes a resumed run draw exactly the batches the uninterrupted one would have.
    state["rng"] = rng.getstate()
    state.update(model.to_json())

    def write(tmp):
        with open(tmp, "w") as f:
            json.dump(state, f, separators=(",", ":"))

    atomic_write(path, write)
    print("checkpoint step %d -> %s" % (step, path), flush=True)


def load(path, vocab, context):
    with open(path) as f:
        state = json.load(f)
    if state.get("format") != FORMAT:
        raise SystemExit("SF_RESUME_FROM=%s is not a charlm checkpoint (format %r)"
                         % (path, state.get("format")))
    if state["vocab"] != "".join(vocab) or state["context"] != context:
        raise SystemExit(
            "SF_RESUME_FROM=%s was trained with context=%d on another vocabulary; "
            "cannot resume with context=%d" % (path, state["context"], context)
        )
    rng = random.Random()
    version, internal, gauss = state["rng"]
    rng.setstate((version, tuple(internal), gauss))
    return Model.from_json(state), state["step"], rng


def _stop_notice(wait_s=2.0):
    """Why and by when the run is stopped, as its runner wrote it (it asks the control plane on SIGTERM,
    at the same moment as this process gets it): waits for it briefly; None where there is none."""
    if not os.environ.get("SF_STOP_NOTICE_FILE") or not report.enabled():
        return None
    until = time.monotonic() + wait_s
    while True:
        notice = report.stop_notice()
        if notice is not None or time.monotonic() >= until:
            return notice
        time.sleep(0.1)


def main(argv=None):
    params = parse_params("charlm.train", PARAMS, sys.argv[1:] if argv is None else argv)
    validate_positive(params, ("max_steps", "batch_size", "context", "checkpoint_every"))
    if not 1 <= params["context"] <= 8:
        raise SystemExit("--context must be between 1 and 8")
    stop = StopFlag()
    text = corpus_text()
    vocab = sorted(set(text))
    index = {c: i for i, c in enumerate(vocab)}
    data = [index[c] for c in text]
    split = int(len(data) * (1 - VALIDATION_FRACTION))
    train, held_out = data[:split], data[split:]
    C = params["context"]

    resume = os.environ.get("SF_RESUME_FROM")
    if resume:
        model, step, rng = load(resume, vocab, C)
        print("resumed from %s at step %d" % (resume, step), flush=True)
    else:
        model, step, rng = Model(vocab, C), 0, random.Random(params["seed"])

    report.init()
    print(
        "charlm: %d characters (%d held out), vocabulary %d, context %d; ln(vocab) = %.3f"
        % (len(data), len(held_out), len(vocab), C, math.log(len(vocab))),
        flush=True,
    )
    window, started, first_step, last_loss = [], time.time(), step, None
    last_saved = step if resume else None
    while step < params["max_steps"] and not stop:
        step += 1
        loss = 0.0
        for _ in range(params["batch_size"]):
            pos = rng.randrange(C, len(train))
            loss += model.sgd_step(context_at(train, pos, C), train[pos], params["learning_rate"])
        last_loss = loss / params["batch_size"]
        window.append(last_loss)
        # Step 1 is logged on its own: at zero weights its loss is exactly ln(vocab), the baseline.
        if step % LOG_EVERY == 0 or step == 1 or step == params["max_steps"]:
            avg = sum(window) / len(window)
            window = []
            report.log({"train/loss": avg}, step=step)
            rate = (step - first_step) / max(1e-9, time.time() - started)
            print("step %d/%d  loss %.4f  (%.0f steps/s)" % (step, params["max_steps"], avg, rate),
                  flush=True)
        if step % params["checkpoint_every"] == 0 or step == params["max_steps"]:
            val = evaluate(model, held_out, C)
            report.log({"val/loss": val}, step=step)
            print("step %d  validation loss %.4f" % (step, val), flush=True)
            save(model, step, rng, params, last_loss)
            last_saved = step
    if stop:
        if last_saved != step:
            save(model, step, rng, params, last_loss)
        print("stopped by signal %d at step %d" % (stop.signum, step), flush=True)
        notice = _stop_notice()
        if notice is not None:
            by = " by %s" % notice["preempted_by"] if notice["preempted_by"] else ""
            print("stop notice: %s%s, SIGKILL after %s" % (notice["cause"], by, notice["deadline"]), flush=True)
        report.finish()
        return 128 + stop.signum
    print("sample: %r" % sample(model, "the ", 60, params["seed"]), flush=True)
    report.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
