"""ddp: tinylm trained with DistributedDataParallel across every rank of a run (needs torch >= 1.13).

Started once per GPU by the capsule's runner (recipe entrypoint ``processes: per_gpu``), it reads the
torchrun environment the runner set (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK) and joins
one process group: NCCL when this process has a GPU, gloo on CPU. Each rank samples its own batches;
DDP averages the gradients, so every rank holds the same model after every step, and the loss printed
and reported is the mean over all ranks (identical on every rank). Rank 0 alone writes checkpoints and
reports metrics; every rank resumes from the same checkpoint (SF_RESUME_FROM), so a paused or retried
gang continues at the same step everywhere. A stop (SIGTERM) on any rank stops all of them at the same
step: the flag is all-reduced each step. Same conventions as tinylm otherwise (``--key=value``,
``train/loss``, ``val/loss``, ``$FORGE_OUT_DIR/checkpoints/step-%06d.pt``, exit 143 on a stop).
"""

import datetime
import math
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
from torch.nn import functional as F
from torch.nn.parallel import DistributedDataParallel

from starforge import report
from starforge._recipe import StopFlag, atomic_write, checkpoint_path, corpus_text, parse_params, validate_positive
from tinylm.train import TinyLM, contexts, evaluate

FORMAT = "starforge.ddp/1"
PARAMS = {
    "learning_rate": (float, 0.01, "Adam step size"),
    "max_steps": (int, 200, "optimizer steps to run"),
    "batch_size": (int, 32, "characters per step on each rank"),
    "context": (int, 8, "characters of context the model sees"),
    "hidden": (int, 64, "hidden units"),
    "embed": (int, 16, "embedding size per character"),
    "checkpoint_every": (int, 50, "steps between checkpoints"),
    "seed": (int, 0, "random seed"),
}
LOG_EVERY = 10
VALIDATION_FRACTION = 0.1


def _env_int(name, default):
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def join_group():
    """init_process_group from the torchrun environment; returns (rank, world, local_rank, device)."""
    missing = [v for v in ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK") if not os.environ.get(v)]
    if missing:
        raise SystemExit(
            "ddp.train needs the distributed environment (%s unset): run it as the torch/ddp recipe, or "
            "under torchrun" % ", ".join(missing)
        )
    local_rank = _env_int("LOCAL_RANK", 0)
    if torch.cuda.is_available():
        # One GPU visible (the runner's per-GPU processes) or all of the node's (torchrun): take ours.
        device = torch.device("cuda", local_rank if torch.cuda.device_count() > 1 else 0)
        torch.cuda.set_device(device)
        backend = "nccl"
    else:
        device, backend = torch.device("cpu"), "gloo"
    timeout = datetime.timedelta(seconds=max(30, _env_int("SF_RENDEZVOUS_TIMEOUT_SECONDS", 300)))
    dist.init_process_group(backend, init_method="env://", timeout=timeout)
    rank, world = dist.get_rank(), dist.get_world_size()
    print(
        "ddp: rank %d of %d (local rank %d, node %s of %s, pool %s) joined the process group: backend %s, "
        "master %s:%s"
        % (rank, world, local_rank, os.environ.get("NODE_RANK", "0"), os.environ.get("NNODES", "1"),
           os.environ.get("FORGE_POOL") or "-", backend, os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"]),
        flush=True,
    )
    hosts = [None] * world
    dist.all_gather_object(hosts, "%s/%d" % (socket.gethostname(), os.getpid()))
    print("ddp: process group complete: %d ranks (%s)" % (world, ", ".join(hosts)), flush=True)
    return rank, world, local_rank, device


def all_mean(value, device):
    t = torch.tensor([value], dtype=torch.float64, device=device)
    dist.all_reduce(t)
    return t.item() / dist.get_world_size()


def any_rank(flag, device):
    t = torch.tensor([1 if flag else 0], dtype=torch.int32, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return bool(t.item())


def save(model, optim, step, params, vocab, world):
    path = checkpoint_path(step, "pt")
    state = {
        "format": FORMAT,
        "step": step,
        "vocab": "".join(vocab),
        "params": params,
        "world_size": world,
        "model": model.module.state_dict(),
        "optim": optim.state_dict(),
    }
    atomic_write(path, lambda tmp: torch.save(state, tmp))
    print("checkpoint step %d -> %s" % (step, path), flush=True)


def main(argv=None):
    params = parse_params("ddp.train", PARAMS, sys.argv[1:] if argv is None else argv)
    validate_positive(params, ("max_steps", "batch_size", "context", "hidden", "embed", "checkpoint_every"))
    torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS") or 1)))
    stop = StopFlag()
    rank, world, _local, device = join_group()

    text = corpus_text()
    vocab = sorted(set(text))
    index = {c: i for i, c in enumerate(vocab)}
    data = torch.tensor([index[c] for c in text], dtype=torch.long)
    split = int(len(data) * (1 - VALIDATION_FRACTION))
    train, held_out = data[:split], data[split:]
    C = params["context"]

    torch.manual_seed(params["seed"])  # the same initial model everywhere (DDP also broadcasts rank 0's)
    net = TinyLM(len(vocab), C, params["embed"], params["hidden"]).to(device)
    optim = torch.optim.Adam(net.parameters(), lr=params["learning_rate"])
    step = 0
    resume = os.environ.get("SF_RESUME_FROM")
    if resume:
        state = torch.load(resume, map_location=device)
        if state.get("format") != FORMAT or state["vocab"] != "".join(vocab):
            raise SystemExit("SF_RESUME_FROM=%s is not a ddp checkpoint for this corpus" % resume)
        net.load_state_dict(state["model"])
        optim.load_state_dict(state["optim"])
        step = state["step"]
        print("rank %d resumed from %s at step %d" % (rank, resume, step), flush=True)
    model = DistributedDataParallel(net, device_ids=[device.index] if device.type == "cuda" else None)

    report.init()
    if rank == 0:
        print("ddp: torch %s, world %d, %d characters, vocabulary %d; ln(vocab) = %.3f"
              % (torch.__version__, world, len(data), len(vocab), math.log(len(vocab))), flush=True)
    # Batches depend only on (seed, rank, step): a resumed gang draws exactly what it would have drawn.
    gen = torch.Generator()
    window, started, first_step = [], time.time(), step
    last_saved = step if resume else None
    model.train()
    while step < params["max_steps"]:
        if any_rank(bool(stop), device):
            break
        step += 1
        gen.manual_seed((params["seed"] * 1000003 + rank * 7919 + step) % (2**63))
        positions = torch.randint(C, len(train), (params["batch_size"],), generator=gen)
        logits = model(contexts(train, positions, C).to(device))
        loss = F.cross_entropy(logits, train[positions].to(device))
        optim.zero_grad()
        loss.backward()  # DDP all-reduces the gradients here
        optim.step()
        window.append(all_mean(loss.item(), device))
        # Every tenth step, and the first and last of this run (a resumed run shows where it began).
        if step % LOG_EVERY == 0 or step == first_step + 1 or step == params["max_steps"]:
            avg = sum(window) / len(window)
            window = []
            report.log({"train/loss": avg}, step=step)
            rate = (step - first_step) / max(1e-9, time.time() - started)
            print("step %d/%d  loss %.6f  (%.0f steps/s)" % (step, params["max_steps"], avg, rate), flush=True)
        if step % params["checkpoint_every"] == 0 or step == params["max_steps"]:
            if rank == 0:
                val = evaluate(net, held_out, C, device)
                report.log({"val/loss": val}, step=step)
                print("step %d  validation loss %.4f" % (step, val), flush=True)
                save(model, optim, step, params, vocab, world)
            last_saved = step
    stopped = step < params["max_steps"]
    if stopped and rank == 0 and last_saved != step:
        save(model, optim, step, params, vocab, world)
    dist.barrier()  # nobody leaves before rank 0's last checkpoint is on disk
    dist.destroy_process_group()
    report.finish()
    if stopped:
        print("rank %d stopped by signal at step %d" % (rank, step), flush=True)
        return 128 + (stop.signum or 15)
    return 0


if __name__ == "__main__":
    sys.exit(main())
