/** `sf admin users|user-add|set-role|disable|enable|quota`. */
import type { Command } from "commander";
import {
  CreatedUser,
  OneUser,
  type QuotaView,
  UserList,
  UserQuota,
} from "../../../contract/responses.schema.js";
import { route } from "../../api.js";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { c, emit, info, print, table } from "../../output.js";

export type Quota = QuotaView;

export async function listUsers(cmd: Command): Promise<void> {
  const { users } = await authedApi(cmd).get(route("/v1/users"), UserList);
  emit({ users }, () =>
    table(
      users.map((u) => ({
        name: u.name,
        role: u.role,
        status: u.disabled ? "disabled" : "active",
        email: u.email,
        created: u.created_at.slice(0, 10),
      })),
      ["name", "role", "status", "email", "created"],
    ),
  );
}

export async function addUser(
  cmd: Command,
  name: string,
  o: { role: string; email?: string },
): Promise<void> {
  const api = authedApi(cmd);
  const r = await api.post(route("/v1/users"), CreatedUser, {
    name,
    role: o.role,
    ...(o.email ? { email: o.email } : {}),
    with_token: true,
  });
  emit(r, () => {
    info(
      `${c.green("✓")} created user ${c.bold(r.user.name)} (${r.user.role}). Their first token, shown only once:`,
    );
    print(r.token);
    info(c.dim(`they log in with: sf login --server ${api.server} --token <token>`));
  });
}

export async function setRole(cmd: Command, name: string, role: string): Promise<void> {
  const { user } = await authedApi(cmd).patch(route("/v1/users/{name}", { name }), OneUser, { role });
  emit({ user }, () => info(`${c.green("✓")} ${user.name} is now ${c.bold(user.role)}`));
}

export async function setDisabled(cmd: Command, name: string, disabled: boolean): Promise<void> {
  const { user } = await authedApi(cmd).patch(route("/v1/users/{name}", { name }), OneUser, { disabled });
  emit({ user }, () =>
    info(
      `${c.green("✓")} ${user.name} is ${disabled ? "disabled: their tokens are refused until `sf admin enable`" : "enabled"}`,
    ),
  );
}

export interface QuotaFlags {
  gpus?: number;
  jobs?: number;
  dailyGpuHours?: number;
  profiles?: string;
  priority?: number;
  maxPriorityClass?: string;
}

/** The quota with only the given flags changed; `null` when no flag was given (show only). */
export function applyQuotaFlags(current: Quota, o: QuotaFlags): Quota | null {
  const given = [o.gpus, o.jobs, o.dailyGpuHours, o.profiles, o.priority, o.maxPriorityClass].some(
    (v) => v !== undefined,
  );
  if (!given) return null;
  if (o.priority !== undefined && o.priority > 100) {
    throw new CliError("--priority must be between 0 and 100", { exit: EXIT.USAGE });
  }
  const profiles =
    o.profiles === undefined
      ? current.allowed_profiles
      : o.profiles.trim() === "" || o.profiles.trim() === "all"
        ? []
        : o.profiles
            .split(",")
            .map((p) => p.trim())
            .filter(Boolean);
  return {
    max_gpus: o.gpus ?? current.max_gpus,
    max_jobs: o.jobs ?? current.max_jobs,
    daily_gpu_hours: o.dailyGpuHours ?? current.daily_gpu_hours,
    allowed_profiles: profiles,
    priority: o.priority ?? current.priority,
    max_priority_class: o.maxPriorityClass ?? current.max_priority_class,
  };
}

export async function quota(cmd: Command, user: string, o: QuotaFlags): Promise<void> {
  const api = authedApi(cmd);
  const path = route("/v1/users/{name}/quota", { name: user });
  const current = await api.get(path, UserQuota);
  const next = applyQuotaFlags(current.quota, o);
  // The API replaces the whole quota; reading it first is what lets a flag change one field only.
  const shown = next ? await api.put(path, UserQuota, next) : current;
  emit(shown, () => {
    if (next) info(`${c.green("✓")} updated the quota of ${shown.user}`);
    const q = shown.quota;
    print(`${c.bold(shown.user)}`);
    print(`  GPUs at once       ${q.max_gpus}`);
    print(`  active jobs        ${q.max_jobs}`);
    print(`  GPU-hours per day  ${q.daily_gpu_hours}`);
    print(`  profiles           ${q.allowed_profiles.length ? q.allowed_profiles.join(", ") : "all"}`);
    print(`  priority           ${q.priority}`);
    print(`  classes up to      ${q.max_priority_class}`);
  });
}
