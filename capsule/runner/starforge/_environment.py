"""What a job can learn about where it runs, with the standard library only.

* ``probe()``: the environment probe sent to ``POST /environment`` (host, Python, platform, packages,
  image, CPUs, memory, GPUs). Only facts that do not change while the job runs, so that every probe of
  the same host and interpreter is identical and the server keeps it once.
* ``node()``: this host as one entry of ``POST /environment/nodes``.
* ``HardwareSampler``: CPU and memory from ``/proc`` always, GPUs from ``nvidia-smi --query-gpu`` when it
  exists, as ``POST /hardware`` points.

Nothing here raises: a fact that cannot be read is left out.
"""

import os
import platform
import shutil
import socket
import subprocess
import sys

NVIDIA_SMI_TIMEOUT_S = 5.0
_GPU_FIELDS = ("index", "uuid", "name", "utilization.gpu", "memory.used", "memory.total",
               "temperature.gpu", "power.draw")
MIB = 1024 * 1024


def hostname():
    try:
        return socket.gethostname()
    except Exception:
        return "unknown"


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def _os_release():
    text = _read("/etc/os-release") or ""
    for line in text.splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.split("=", 1)[1].strip().strip('"')
    return None


def _meminfo():
    """MemTotal and MemAvailable in bytes (None when /proc is not there)."""
    text = _read("/proc/meminfo")
    if not text:
        return None, None
    values = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in ("MemTotal:", "MemAvailable:"):
            values[parts[0][:-1]] = int(parts[1]) * 1024
    return values.get("MemTotal"), values.get("MemAvailable")


def _cpu_model():
    text = _read("/proc/cpuinfo") or ""
    for line in text.splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or None


def _number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None  # "[N/A]", "[Not Supported]"


def _visible(gpus):
    """Only the GPUs this job was given (CUDA_VISIBLE_DEVICES by index or UUID), when it says."""
    spec = os.environ.get("CUDA_VISIBLE_DEVICES")
    if spec is None or spec.strip() == "":
        return gpus
    wanted = {s.strip() for s in spec.split(",") if s.strip()}
    return [g for g in gpus if str(g["index"]) in wanted or g.get("uuid") in wanted]


def gpus():
    """One dict per GPU from nvidia-smi, or [] where there is none."""
    exe = shutil.which("nvidia-smi")
    if not exe:
        return []
    try:
        out = subprocess.run(
            [exe, "--query-gpu=" + ",".join(_GPU_FIELDS), "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=NVIDIA_SMI_TIMEOUT_S, check=False,
        ).stdout
    except Exception:
        return []
    found = []
    for line in out.splitlines():
        cols = [c.strip() for c in line.split(",")]
        if len(cols) != len(_GPU_FIELDS):
            continue
        row = dict(zip(_GPU_FIELDS, cols))
        idx = _number(row["index"])
        if idx is None:
            continue
        found.append({
            "index": int(idx),
            "uuid": row["uuid"] or None,
            "name": row["name"],
            "util": _number(row["utilization.gpu"]),
            "mem_used": _number(row["memory.used"]),
            "mem_total": _number(row["memory.total"]),
            "temp": _number(row["temperature.gpu"]),
            "power": _number(row["power.draw"]),
        })
    return _visible(found)


def _packages():
    try:
        from importlib import metadata
    except ImportError:
        return {}
    found = {}
    try:
        for dist in metadata.distributions():
            name = dist.metadata.get("Name") if dist.metadata else None
            if name:
                found[name.lower()] = dist.version
    except Exception:
        pass
    return dict(sorted(found.items()))


def _static_gpus(found):
    return [{"index": g["index"], "uuid": g["uuid"], "name": g["name"],
             "memory_total_bytes": int(g["mem_total"] * MIB) if g["mem_total"] is not None else None}
            for g in found]


def probe():
    """The environment probe: facts about this host and interpreter that do not change during a run."""
    total, _ = _meminfo()
    return {
        "hostname": hostname(),
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
        },
        "platform": {"system": platform.system(), "release": platform.release(), "machine": platform.machine(),
                     "os": _os_release()},
        "image": {"ref": os.environ.get("FORGE_IMAGE") or None},
        "cpu": {"count": os.cpu_count(), "model": _cpu_model()},
        "memory_total_bytes": total,
        "gpus": _static_gpus(gpus()),
        "packages": _packages(),
    }


def node():
    """This host as one entry of /environment/nodes: {hostname, cpu, gpu}."""
    total, _ = _meminfo()
    return {
        "hostname": hostname(),
        "cpu": {"count": os.cpu_count(), "model": _cpu_model(), "memory_total_bytes": total},
        "gpu": _static_gpus(gpus()),
    }


def _cpu_times():
    """(busy, total) jiffies from the first line of /proc/stat, or None."""
    text = _read("/proc/stat")
    if not text:
        return None
    fields = text.splitlines()[0].split()
    if not fields or fields[0] != "cpu":
        return None
    values = [int(v) for v in fields[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
    total = sum(values[:8])  # guest time is already inside user/nice
    return total - idle, total


class HardwareSampler:
    """Turns readings into /hardware points. CPU utilisation is measured between two samples, so the
    first call only sets the baseline for it."""

    def __init__(self, worker_id=None, node_id=None):
        self.worker_id = worker_id or hostname()
        self.node_id = node_id
        self._last_cpu = _cpu_times()

    def _point(self, key, value, ts, gpu=None):
        return {"key": key, "value": float(value), "node_id": self.node_id, "worker_id": self.worker_id,
                "gpu_idx": gpu["index"] if gpu else None, "gpu_uuid": gpu["uuid"] if gpu else None, "ts": ts}

    def sample(self, ts):
        points = []
        now = _cpu_times()
        if now and self._last_cpu and now[1] > self._last_cpu[1]:
            busy = now[0] - self._last_cpu[0]
            points.append(self._point("cpu.util", 100.0 * busy / (now[1] - self._last_cpu[1]), ts))
        if now:
            self._last_cpu = now
        total, available = _meminfo()
        if total and available is not None:
            points.append(self._point("mem.used_bytes", total - available, ts))
            points.append(self._point("mem.total_bytes", total, ts))
            points.append(self._point("mem.util", 100.0 * (total - available) / total, ts))
        for g in gpus():
            if g["util"] is not None:
                points.append(self._point("gpu.util", g["util"], ts, g))
            if g["mem_used"] is not None:
                points.append(self._point("gpu.mem_used_bytes", g["mem_used"] * MIB, ts, g))
                if g["mem_total"]:
                    points.append(self._point("gpu.mem_util", 100.0 * g["mem_used"] / g["mem_total"], ts, g))
            if g["temp"] is not None:
                points.append(self._point("gpu.temp_c", g["temp"], ts, g))
            if g["power"] is not None:
                points.append(self._point("gpu.power_w", g["power"], ts, g))
        return points
