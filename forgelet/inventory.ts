/** What this node has: GPUs from nvidia-smi, or a declared simulated inventory for machines without GPUs. */
import { execFile } from "node:child_process";
import { cpus, hostname, totalmem } from "node:os";
import { promisify } from "node:util";
import type { ClusterNode, GpuInfo, Inventory, WorkloadKind } from "../contract/agent-frames.schema.js";

const run = promisify(execFile);

export interface InventoryOptions {
  runtime: Inventory["runtime"];
  simulateGpus?: number;
  gpuSeries?: string;
  name?: string;
  labels: Record<string, string>;
  agentVersion: string;
  advertiseAddr?: string;
  /** What the node runs, when not what its runtime runs by default. */
  workloads?: readonly WorkloadKind[];
}

/** Series from a product name: "NVIDIA H200" → h200, "NVIDIA A100-SXM4-80GB" → a100. */
export function seriesOf(productName: string): string | null {
  const m = /\b([a-z]{1,3}\d{2,4}[a-z]?)\b/i.exec(productName.replace(/^nvidia\s+/i, ""));
  return m ? m[1]!.toLowerCase() : null;
}

export function parseNvidiaSmi(csv: string): GpuInfo[] {
  return csv
    .trim()
    .split("\n")
    .filter((l) => l.trim())
    .map((line) => {
      const [index, uuid, name, mem] = line.split(",").map((s) => s.trim());
      return {
        index: Number(index),
        uuid,
        name: name ?? "gpu",
        memory_mb: Number(mem) || undefined,
        simulated: false,
      };
    });
}

/** A cluster agent's inventory: its own host runs nothing; the cluster's nodes are the fleet's. */
export async function clusterInventory(
  cluster: { nodes(): Promise<ClusterNode[]> },
  o: {
    runtime: Inventory["runtime"];
    name?: string;
    labels: Record<string, string>;
    agentVersion: string;
    workloads?: readonly WorkloadKind[];
  },
): Promise<Inventory> {
  const nodes = await cluster.nodes();
  return {
    ...(o.workloads ? { workloads: [...o.workloads] } : {}),
    hostname: o.name ?? hostname(),
    runtime: o.runtime,
    gpu_series: nodes[0]?.gpu_series ?? "none",
    gpus: [],
    cpus: cpus().length,
    memory_mb: Math.floor(totalmem() / 1024 / 1024),
    labels: o.labels,
    agent_version: o.agentVersion,
    nodes,
  };
}

export async function detectInventory(o: InventoryOptions): Promise<Inventory> {
  let gpus: GpuInfo[];
  let series = o.gpuSeries;
  if (o.simulateGpus !== undefined) {
    if (!series) throw new Error("--simulate-gpus needs --gpu-series (e.g. --gpu-series h200)");
    gpus = Array.from({ length: o.simulateGpus }, (_, index) => ({
      index,
      name: `simulated ${series}`,
      simulated: true,
    }));
  } else {
    let out: string;
    try {
      out = (
        await run("nvidia-smi", ["--query-gpu=index,uuid,name,memory.total", "--format=csv,noheader,nounits"])
      ).stdout;
    } catch {
      throw new Error(
        "no GPUs found: nvidia-smi is not available here. On a machine without GPUs declare a simulated inventory with --simulate-gpus N --gpu-series SERIES",
      );
    }
    gpus = parseNvidiaSmi(out);
    series ??= seriesOf(gpus[0]?.name ?? "") ?? undefined;
    if (!series) throw new Error(`cannot tell the GPU series from "${gpus[0]?.name}"; pass --gpu-series`);
  }
  if (gpus.length === 0) throw new Error("this node has no GPUs to offer");
  return {
    hostname: o.name ?? hostname(),
    runtime: o.runtime,
    gpu_series: series,
    gpus,
    cpus: cpus().length,
    memory_mb: Math.floor(totalmem() / 1024 / 1024),
    labels: o.labels,
    agent_version: o.agentVersion,
    ...(o.advertiseAddr ? { advertise_addr: o.advertiseAddr } : {}),
    ...(o.workloads ? { workloads: [...o.workloads] } : {}),
  };
}
