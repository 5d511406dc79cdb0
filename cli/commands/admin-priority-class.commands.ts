/**
 * `sf admin priority-class …`: the queue's order, and who may preempt whom. Registered by
 * admin.commands.ts; the implementation loads only when a command runs.
 */
import { type Command, InvalidArgumentError } from "commander";
import { examples, int } from "./options.js";

const classes = () => import("../impl/admin/priority-classes.js");

function signedInt(name: string) {
  return (v: string): number => {
    if (!/^-?\d+$/.test(v)) throw new InvalidArgumentError(`${name} must be an integer`);
    return Number(v);
  };
}

export function registerPriorityClassCommands(admin: Command): void {
  const pc = admin
    .command("priority-class")
    .description("priority classes: the queue's order, and who may preempt whom (docs/scheduling.md)")
    .addHelpText("after", examples(["sf admin priority-class ls"]));

  pc.command("ls")
    .description("list the priority classes, highest value first")
    .addHelpText("after", examples(["sf admin priority-class ls", "sf admin priority-class ls --json"]))
    .action(async (_o: unknown, cmd: Command) => (await classes()).listClasses(cmd));

  pc.command("set")
    .argument("<name>", "the class (one of the built-ins, or a new one: then --value is required)")
    .description("change a class's attributes (the others keep their value), or add a class")
    .option("--value <n>", "its value: higher runs first and may preempt lower", signedInt("--value"))
    .option("--preemptible", "jobs of this class may be preempted by higher classes")
    .option("--no-preemptible", "jobs of this class are never preempted")
    .option(
      "--grace-seconds <s>",
      "seconds a preempted job gets to checkpoint before SIGKILL",
      int("--grace-seconds", 0),
    )
    .option(
      "--min-runtime-seconds <s>",
      "seconds a job runs before it may be preempted",
      int("--min-runtime-seconds", 0),
    )
    .option("--borrow", "jobs of this class may use GPUs beyond their team's guarantee")
    .option("--no-borrow", "jobs of this class run only inside guaranteed quota")
    .option("--description <text>", "what the class is for")
    .addHelpText(
      "after",
      examples([
        "sf admin priority-class set low --min-runtime-seconds 120 --grace-seconds 90",
        "sf admin priority-class set batch --value -200 --preemptible --description 'nightly batch'",
        "sf admin priority-class set high --no-preemptible",
      ]),
    )
    .action(async (name: string, o, cmd: Command) => (await classes()).setClass(cmd, name, o));

  pc.command("rm")
    .argument("<name>", "a class an admin added (the built-ins cannot be removed)")
    .description("remove a class; its jobs count as normal from then on")
    .action(async (name: string, _o: unknown, cmd: Command) => (await classes()).removeClass(cmd, name));
}
