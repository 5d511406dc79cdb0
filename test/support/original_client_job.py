"""The compatibility job: training code that reports only through the original client
(original_client.py), while printing its own progress to stdout, which the capsule's runner ships on
the same run. Every value is deterministic: test/node/original-client.test.ts computes what must read
back from the same constants (keep the two in step).
"""

import os
import time

from original_client import OriginalClient

PARTS = 4
LINES_PER_PART = 300
STEPS = 120
PRINTED_PER_PART = 60
INSTANTS_PER_PART = 3
BASE_TS = 1796000000  # epoch seconds of the first hardware instant; instants are 10 s apart


def console_part(p):
    return "".join("console line %d: %s\n" % (n, "x" * (n % 97))
                   for n in range(p * LINES_PER_PART, (p + 1) * LINES_PER_PART))


def main():
    c = OriginalClient()
    out = os.environ["FORGE_OUT_DIR"]
    c.environment({"hostname": "gpu-node-a", "python": {"version": "3.11.7"}, "packages": {"torch": "2.3.0"},
                   "image": "acme/train:1"})
    c.nodes([{"hostname": "gpu-node-a", "cpu": 64, "gpu": ["H200", "H200"]},
             {"hostname": "gpu-node-b", "cpu": 64, "gpu": ["H200", "H200"]}])
    c.hparams({"lr": 0.0003, "model": {"layers": 2, "act": "gelu"}, "tags": ["a", "b"]})
    printed = 0
    for p in range(PARTS):
        c.terminal_text(console_part(p))
        for s in range(p * STEPS // PARTS, (p + 1) * STEPS // PARTS):
            c.metric("train/loss", s, 1.0 / (s + 1))
            # A diverged value goes out as Python's bare NaN token: only this point may be lost.
            c.metric("train/grad_norm", s, float("nan") if s == 50 else s * 0.5)
        for t in range(p * INSTANTS_PER_PART, (p + 1) * INSTANTS_PER_PART):
            for worker, base in (("host-a", 10), ("host-b", 20)):
                c.hardware("cpu.util", base + t, worker, ts=BASE_TS + 10 * t)
                for g in (0, 1):
                    c.hardware("gpu.util", base + t + g / 2, worker, gpu_idx=g,
                               gpu_uuid="GPU-%s-%d" % (worker, g), ts=BASE_TS + 10 * t)
        for _ in range(PRINTED_PER_PART):
            print("runner line %d" % printed)
            printed += 1
        time.sleep(0.4)
    c.terminal_text("the last line has no newline")
    c.artifact("checkpoint", os.path.join(out, "checkpoints", "checkpoint-100"), step=100, size_bytes=1234,
               metrics={"eval": {"acc": 0.5}, "tags": ["best"]})
    c.artifact("hf_export", os.path.join(out, "hf"))
    samples = [{"idx": i, "reward": i / 10, "user": "question %d" % i,
                "assistant": "answer %d\nwith two lines" % i, "env": {"seed": i}} for i in range(7)]
    c.validation(10, samples, per_chunk=3, avg_reward=0.3, dist={"hist": [1, 2, 4]})
    c.close()
    print("job done: %d lines printed" % printed)


if __name__ == "__main__":
    main()
