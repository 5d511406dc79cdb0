/**
 * What a fresh control plane ships with: the built-in recipe versions (ensured on every start; versions
 * are immutable, so this only ever adds) and the initial hardware registry (seeded once, then admins own it).
 */
import type { RecipeVersionBody } from "../../contract/catalog.schema.js";
import type { ProfileEntry } from "../../contract/profile-grammar.js";

export const BUILTIN_RECIPES: RecipeVersionBody[] = [
  {
    name: "custom/custom",
    version: "1.0.0",
    description: "Bring your own image and a train.sh; the platform runs it as is and streams its output.",
    frameworks: [{ kind: "custom", versions: ["1"], runtime_id: "bash", image: null }],
    params: {},
    entrypoint: { kind: "script", path: "train.sh" },
    requires_image: true,
    template: {
      "train.sh":
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a JS template
        '#!/usr/bin/env bash\nset -euo pipefail\necho "training run ${STARFORGE_RUN_ID:-local} in $(pwd)"\n',
    },
  },
  {
    name: "python/charlm",
    version: "1.0.0",
    description:
      "A character-level language model trained with the Python standard library only: runs wherever python3 exists, on CPU.",
    frameworks: [{ kind: "python", versions: ["3"], runtime_id: "python3-stdlib", image: null }],
    params: {
      learning_rate: { type: "float", default: 0.1, min: 1e-6, max: 10, doc: "SGD step size" },
      max_steps: { type: "int", default: 300, min: 1, max: 1_000_000, doc: "optimizer steps to run" },
      batch_size: { type: "int", default: 32, min: 1, max: 4096, doc: "characters per step" },
      context: { type: "int", default: 2, min: 1, max: 8, doc: "characters of context the model sees" },
      checkpoint_every: {
        type: "int",
        default: 100,
        min: 1,
        max: 1_000_000,
        doc: "steps between checkpoints",
      },
      seed: { type: "int", default: 0, min: 0, max: 2_147_483_647, doc: "random seed" },
    },
    entrypoint: { kind: "python", module: "charlm.train" },
    requires_image: false,
    template: {},
  },
  {
    name: "torch/tinylm",
    version: "1.0.0",
    description:
      "A tiny PyTorch character-level language model (MLP over a context window, Adam) for containers with torch >= 1.13; CPU is enough.",
    frameworks: [
      { kind: "torch", versions: ["1.13"], runtime_id: "torch-cpu", image: "starforge/torch-cpu:bookworm" },
    ],
    params: {
      learning_rate: { type: "float", default: 0.01, min: 1e-6, max: 1, doc: "Adam step size" },
      max_steps: { type: "int", default: 300, min: 1, max: 1_000_000, doc: "optimizer steps to run" },
      batch_size: { type: "int", default: 64, min: 1, max: 8192, doc: "characters per step" },
      context: { type: "int", default: 8, min: 1, max: 64, doc: "characters of context the model sees" },
      hidden: { type: "int", default: 128, min: 8, max: 4096, doc: "hidden units" },
      embed: { type: "int", default: 16, min: 2, max: 1024, doc: "embedding size per character" },
      checkpoint_every: {
        type: "int",
        default: 100,
        min: 1,
        max: 1_000_000,
        doc: "steps between checkpoints",
      },
      seed: { type: "int", default: 0, min: 0, max: 2_147_483_647, doc: "random seed" },
    },
    entrypoint: { kind: "python", module: "tinylm.train" },
    requires_image: false,
    template: {},
  },
  {
    name: "torch/ddp",
    version: "1.0.0",
    description:
      "tinylm trained with DistributedDataParallel across every GPU of every node of the job (one process per GPU; NCCL on GPUs, gloo on CPU). Rank 0 checkpoints; the whole gang resumes from it. Runs on the torch where it lands: the node's python3 on process fleets, your image (--image, with CUDA for GPUs) on container fleets.",
    // No default image: distributed GPU training needs the user's CUDA build of torch, and on process
    // fleets the node's own python3 with torch runs it (docs/multi-node.md).
    frameworks: [{ kind: "torch", versions: ["1.13"], runtime_id: "torch", image: null }],
    params: {
      learning_rate: { type: "float", default: 0.01, min: 1e-6, max: 1, doc: "Adam step size" },
      max_steps: { type: "int", default: 200, min: 1, max: 1_000_000, doc: "optimizer steps to run" },
      batch_size: { type: "int", default: 32, min: 1, max: 8192, doc: "characters per step on each rank" },
      context: { type: "int", default: 8, min: 1, max: 64, doc: "characters of context the model sees" },
      hidden: { type: "int", default: 64, min: 8, max: 4096, doc: "hidden units" },
      embed: { type: "int", default: 16, min: 2, max: 1024, doc: "embedding size per character" },
      checkpoint_every: {
        type: "int",
        default: 50,
        min: 1,
        max: 1_000_000,
        doc: "steps between checkpoints",
      },
      seed: { type: "int", default: 0, min: 0, max: 2_147_483_647, doc: "random seed" },
    },
    entrypoint: { kind: "python", module: "ddp.train", processes: "per_gpu" },
    requires_image: false,
    template: {},
  },
];

export const INITIAL_PROFILES: ProfileEntry[] = [
  {
    name: "h200",
    series: "h200",
    gpus_per_node: 8,
    default_gpus: 8,
    description: "NVIDIA H200 141GB, 8 per node",
  },
  {
    name: "h100",
    series: "h100",
    gpus_per_node: 8,
    default_gpus: 8,
    description: "NVIDIA H100 80GB, 8 per node",
  },
  {
    name: "a100",
    series: "a100",
    gpus_per_node: 8,
    default_gpus: 8,
    description: "NVIDIA A100 80GB, 8 per node",
  },
  {
    name: "l40s",
    series: "l40s",
    gpus_per_node: 4,
    default_gpus: 1,
    description: "NVIDIA L40S 48GB, 4 per node",
  },
];
