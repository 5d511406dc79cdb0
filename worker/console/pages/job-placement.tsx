/** @jsxImportSource hono/jsx */
/**
 * The job page's placement: for a job placed over several fleets, every candidate fleet its submit
 * considered, whether it could run the job, its estimated start, and why it was or was not chosen (the
 * `admitted` event's `detail.placement`; docs/scheduling.md "Placement over several fleets").
 */
import type { FC } from "hono/jsx";
import { admittedPlacement } from "../../../contract/placement.js";
import { DataTable, Time } from "../layout.js";

export const Placement: FC<{ events: ReadonlyArray<{ edge: string; detail: unknown }> }> = ({ events }) => {
  const candidates = admittedPlacement(events);
  if (!candidates) return null;
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
    </section>
  );
};
