// The paths after admission, on one workerd without wrangler's proxy: submit → LaunchRequest at a
// connected agent (1 agent, then many agents heartbeating on one fleet), ingest into one run, and the
// live log tail. Agents are simulated (scripts/bench/agent.mjs) on real WebSockets.
import { benchIngest, benchLogTail } from "./ingest.mjs";
import { jsonClient, launchLatency, publishCapsule } from "./latency.mjs";
import { benchUser, charlmSpec } from "./setup.mjs";
import { startWorkerd } from "./workerd.mjs";

const log = (m) => process.stderr.write(`bench: ${m}\n`);

export async function benchPipeline({ samples, fanInAgents, heartbeatMs, points, lines, tailSamples }) {
  const w = await startWorkerd();
  const api = jsonClient(w.url);
  const opened = [];
  try {
    const user = await benchUser(api, w.adminToken, {
      max_gpus: 100_000,
      max_jobs: 100_000,
      daily_gpu_hours: 1_000_000,
    });
    await publishCapsule(api, w.adminToken);
    const specFor = (fleet) => charlmSpec(user.charlmDigest, fleet);
    const common = { w, api, user, specFor, heartbeatMs };

    // Warm-up on a fleet of its own.
    const warm = await launchLatency({
      ...common,
      fleetName: "lat-warm",
      agents: 1,
      gpusEach: 8,
      samples: 20,
      recycle: true,
    });
    opened.push(...warm.connected);
    log("submit → LaunchRequest, 1 agent");
    const one = await launchLatency({
      ...common,
      fleetName: "lat-1",
      agents: 1,
      gpusEach: 8,
      samples,
      recycle: true,
    });
    opened.push(...one.connected);
    log(`  p50 ${one.result.p50_ms} ms, p99 ${one.result.p99_ms} ms`);
    let fanIn = null;
    if (fanInAgents > 0) {
      log(`submit → LaunchRequest, ${fanInAgents} agents heartbeating every ${heartbeatMs / 1000} s`);
      const many = await launchLatency({
        ...common,
        fleetName: "lat-many",
        agents: fanInAgents,
        gpusEach: 1,
        samples,
        recycle: true,
      });
      opened.push(...many.connected);
      fanIn = many.result;
      log(`  p50 ${fanIn.p50_ms} ms, p99 ${fanIn.p99_ms} ms`);
    }
    // Two runs that stay live, for ingest and the log tail.
    const live = await launchLatency({ ...common, fleetName: "ingest", agents: 1, gpusEach: 8, samples: 2 });
    opened.push(...live.connected);
    log(`ingest: ${points} points, ${lines} lines into one run`);
    const ingest = await benchIngest({
      baseUrl: w.url,
      userToken: user.token,
      launch: live.launches[0],
      points,
      lines,
    });
    log(`  ${ingest.points_per_s} points/s, ${ingest.lines_per_s} lines/s`);
    log("log tail");
    const tail = await benchLogTail({
      baseUrl: w.url,
      userToken: user.token,
      launch: live.launches[1],
      samples: tailSamples,
    });
    log(`  p50 ${tail.p50_ms} ms, p99 ${tail.p99_ms} ms`);
    return {
      launch: {
        tool: "one submit at a time; time from sending the submit to the launch frame at the agent",
        ...one.result,
      },
      fan_in: fanIn ? { heartbeat_ms: heartbeatMs, ...fanIn } : null,
      ingest,
      log_tail: tail,
    };
  } finally {
    for (const a of opened) a.close();
    await w.stop();
  }
}
