/** `sf admin node ls|cordon|uncordon|drain|revoke|rm`: one node of a fleet, by name or id. */
import type { Command } from "commander";
import type { NodeAction } from "../../../contract/fleet.schema.js";
import { NodeAdminAnswer, NodeList } from "../../../contract/responses.schema.js";
import { route } from "../../api.js";
import { authedApi } from "../../context.js";
import { c, emit, info, print, table } from "../../output.js";

export async function ls(cmd: Command, fleet: string): Promise<void> {
  const { nodes } = await authedApi(cmd).get(route("/v1/fleets/{fleet}/nodes", { fleet }), NodeList);
  emit({ nodes }, () => {
    if (nodes.length === 0) {
      info(
        `fleet ${fleet} has no nodes yet: \`sf admin fleet enroll-token ${fleet}\`, then \`forgelet enroll\``,
      );
      return;
    }
    table(
      nodes.map((n) => ({
        name: n.name,
        id: n.id,
        status: n.revoked
          ? "revoked"
          : n.cordoned
            ? `cordoned${n.cordon_note ? `: ${n.cordon_note}` : ""}`
            : (n.status_reason ?? n.status),
        agent: n.agent ? "yes" : "-",
        gpus: `${n.gpus.filter((g) => g.run_id).length}/${n.gpus.length} used`,
      })),
      ["name", "id", "status", "agent", "gpus"],
    );
  });
}

const DONE: Record<NodeAction, string> = {
  cordon: "cordoned: no new runs; running ones go on",
  uncordon: "uncordoned: it takes new runs again",
  drain: "drained",
  revoke: "revoked: its agent is disconnected and refused from now on; its runs are handled as lost",
  remove: "removed",
};

export async function act(
  cmd: Command,
  action: NodeAction,
  node: string,
  o: { fleet: string; note?: string },
): Promise<void> {
  const params = { fleet: o.fleet, node };
  const api = authedApi(cmd);
  const r =
    action === "remove"
      ? await api.delete(route("/v1/fleets/{fleet}/nodes/{node}", params), NodeAdminAnswer)
      : await api.post(
          route(`/v1/fleets/{fleet}/nodes/{node}/${action}`, params),
          NodeAdminAnswer,
          o.note ? { note: o.note } : {},
        );
  emit(r, () => {
    info(`${c.green("✓")} ${c.bold(node)} ${DONE[action]}`);
    if (action === "drain") {
      if (r.requeued.length > 0)
        print(`stopped with a checkpoint and queued again elsewhere: ${r.requeued.join(", ")}`);
      for (const b of r.blockers) print(c.yellow(`still running: ${b.job_id} (${b.name}): ${b.reason}`));
      if (r.requeued.length === 0 && r.blockers.length === 0) print("nothing was running there");
    }
  });
}
