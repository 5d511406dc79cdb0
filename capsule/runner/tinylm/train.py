"""tinylm: a tiny PyTorch character language model (needs torch >= 1.13; nothing else).

An embedding per context character, concatenated, through one tanh hidden layer to the next
character's logits (Bengio-style MLP LM), trained with Adam on the same shipped corpus as charlm.
Same conventions as charlm: ``--key=value`` hyperparameters, ``train/loss`` every few steps and
``val/loss`` at each checkpoint through starforge.report, checkpoints at
``$FORGE_OUT_DIR/checkpoints/step-%06d.pt`` (temp file + rename), resume from ``SF_RESUME_FROM``
continuing the step counter, SIGTERM -> checkpoint and exit 143.

Written against the torch 1.13 API (Debian's python3-torch) and what later versions kept of it.
"""

import math
import os
import sys
import time

import torch
from torch import nn
from torch.nn import functional as F

from starforge import report
from starforge._recipe import (
    StopFlag,
    atomic_write,
    checkpoint_path,
    corpus_text,
    parse_params,
    validate_positive,
)

FORMAT = "starforge.tinylm/1"
PARAMS = {
    "learning_rate": (float, 0.01, "Adam step size"),
    "max_steps": (int, 300, "optimizer steps to run"),
    "batch_size": (int, 64, "characters per step"),
    "context": (int, 8, "characters of context the model sees"),
    "hidden": (int, 128, "hidden units"),
    "embed": (int, 16, "embedding size per character"),
    "checkpoint_every": (int, 100, "steps between checkpoints"),
    "seed": (int, 0, "random seed"),
}
LOG_EVERY = 10
VALIDATION_FRACTION = 0.1


class TinyLM(nn.Module):
    def __init__(self, vocab_size, context, embed, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed)
        self.hidden = nn.Linear(context * embed, hidden)
        self.out = nn.Linear(hidden, vocab_size)

    def forward(self, ctx):  # ctx: [batch, context] character indices
        e = self.embed(ctx).flatten(1)
        return self.out(torch.tanh(self.hidden(e)))


def contexts(data, positions, context):
    """[batch, context]: column i is the character i+1 places before each target position."""
    offsets = torch.arange(1, context + 1, dtype=torch.long)
    return data[positions.unsqueeze(1) - offsets.unsqueeze(0)]


def evaluate(model, data, context, device):
    with torch.no_grad():
        positions = torch.arange(context, len(data), dtype=torch.long)
        logits = model(contexts(data, positions, context).to(device))
        return F.cross_entropy(logits, data[positions].to(device)).item()


def save(model, optim, gen, step, params, vocab):
    path = checkpoint_path(step, "pt")
    state = {
        "format": FORMAT,
        "step": step,
        "vocab": "".join(vocab),
        "params": params,
        "model": model.state_dict(),
        "optim": optim.state_dict(),
        "rng": gen.get_state(),
    }
    atomic_write(path, lambda tmp: torch.save(state, tmp))
    print("checkpoint step %d -> %s" % (step, path), flush=True)


def main(argv=None):
    params = parse_params("tinylm.train", PARAMS, sys.argv[1:] if argv is None else argv)
    validate_positive(params, ("max_steps", "batch_size", "context", "hidden", "embed", "checkpoint_every"))
    # One thread unless told otherwise: training shares its node, and a tiny model gains nothing
    # from more threads than the runtime gave it.
    torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS") or 1)))
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    stop = StopFlag()

    text = corpus_text()
    vocab = sorted(set(text))
    index = {c: i for i, c in enumerate(vocab)}
    data = torch.tensor([index[c] for c in text], dtype=torch.long)
    split = int(len(data) * (1 - VALIDATION_FRACTION))
    train, held_out = data[:split], data[split:]
    C = params["context"]

    torch.manual_seed(params["seed"])
    model = TinyLM(len(vocab), C, params["embed"], params["hidden"]).to(device)
    optim = torch.optim.Adam(model.parameters(), lr=params["learning_rate"])
    gen = torch.Generator()  # batch sampling on the CPU, so runs repeat on any device
    gen.manual_seed(params["seed"])
    step = 0

    resume = os.environ.get("SF_RESUME_FROM")
    if resume:
        state = torch.load(resume, map_location=device)
        if state.get("format") != FORMAT or state["vocab"] != "".join(vocab):
            raise SystemExit("SF_RESUME_FROM=%s is not a tinylm checkpoint for this corpus" % resume)
        model.load_state_dict(state["model"])
        optim.load_state_dict(state["optim"])
        gen.set_state(state["rng"])
        step = state["step"]
        print("resumed from %s at step %d" % (resume, step), flush=True)

    report.init()
    print(
        "tinylm: torch %s on %s, %d characters, vocabulary %d, context %d; ln(vocab) = %.3f"
        % (torch.__version__, device, len(data), len(vocab), C, math.log(len(vocab))),
        flush=True,
    )
    window, started, first_step = [], time.time(), step
    last_saved = step if resume else None
    model.train()
    while step < params["max_steps"] and not stop:
        step += 1
        positions = torch.randint(C, len(train), (params["batch_size"],), generator=gen)
        logits = model(contexts(train, positions, C).to(device))
        loss = F.cross_entropy(logits, train[positions].to(device))
        optim.zero_grad()
        loss.backward()
        optim.step()
        window.append(loss.item())
        if step % LOG_EVERY == 0 or step == 1 or step == params["max_steps"]:
            avg = sum(window) / len(window)
            window = []
            report.log({"train/loss": avg}, step=step)
            rate = (step - first_step) / max(1e-9, time.time() - started)
            print("step %d/%d  loss %.4f  (%.0f steps/s)" % (step, params["max_steps"], avg, rate),
                  flush=True)
        if step % params["checkpoint_every"] == 0 or step == params["max_steps"]:
            model.eval()
            val = evaluate(model, held_out, C, device)
            model.train()
            report.log({"val/loss": val}, step=step)
            print("step %d  validation loss %.4f" % (step, val), flush=True)
            save(model, optim, gen, step, params, vocab)
            last_saved = step
    if stop:
        if last_saved != step:
            save(model, optim, gen, step, params, vocab)
        print("stopped by signal %d at step %d" % (stop.signum, step), flush=True)
        report.finish()
        return 128 + stop.signum
    report.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
