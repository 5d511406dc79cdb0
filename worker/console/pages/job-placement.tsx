/** @jsxImportSource hono/jsx */
/**
 * The job page's placement: for a job placed over several fleets, every candidate fleet its submit
 * considered, whether it could run the job, its estimated start, and why it was or was not chosen (the
 * `admitted` event's `detail.placement`; docs/scheduling.md "Placement over several fleets"), and the moves it
 * made between them while it waited (its `rerouted` events).
 */
import type { FC } from "hono/jsx";
import { admittedPlacement, reroutesOf, rerouteWhy } from "../../../contract/placement.js";
import { DataTable, Time } from "../layout.js";

export const Placement: FC<{ events: ReadonlyArray<{ edge: string; ts: string; detail: unknown }> }> = ({
  events,
}) => {
  const candidates = admittedPlacement(events);
  if (!candidates) return null;
  const moves = reroutesOf(events);
  return (
    <section class="placement" aria-labelledby="placement-h">
      <h2 id="placement-h">Placement</h2>
      <p class="note">The fleets this job could go to when it was submitted, and why it went where it did.</p>
      <DataTable
        class="placement-table"
        caption="Candidate fleets"
        columns={["Fleet", "Chosen", "Could run", "Starts", "Why"]}
      >
        {candidates.map((c) => (
          <tr data-candidate={c.fleet} data-chosen={c.chosen ? "1" : undefined}>
            <th scope="row">{c.fleet}</th>
            <td>{c.chosen ? "yes" : "—"}</td>
            <td>{c.eligible ? "yes" : "no"}</td>
            <td>
              {!c.eligible ? (
                "never"
              ) : c.estimated_start === 0 ? (
                "now"
              ) : c.estimated_start === null ? (
                "unknown"
              ) : (
                <Time iso={new Date(c.estimated_start).toISOString()} />
              )}
            </td>
            <td>{c.reason}</td>
          </tr>
        ))}
      </DataTable>
      {moves.length > 0 ? (
        <DataTable
          class="reroutes-table"
          caption="Moves while it waited"
          columns={["At", "From", "To", "Why"]}
        >
          {moves.map((m) => (
            <tr data-reroute={`${m.from}>${m.to}`}>
              <td>
                <Time iso={m.ts} />
              </td>
              <td>{m.from}</td>
              <td>{m.to}</td>
              <td>
                {rerouteWhy(m.why)}: {m.basis}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </section>
  );
};
