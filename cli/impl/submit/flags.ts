/** The options of `sf submit` and `sf sweep`, as commander hands them to the implementations. */
export interface SubmitFlags {
  profile?: string[];
  set?: string[];
  allowDirty?: boolean;
  image?: string;
  fleet?: string;
  fleetSelector?: string;
  /** Names of secrets the job gets as environment variables (repeatable). */
  secret?: string[];
  /** `lifecycle.priority_class`, over config.yaml's. */
  priorityClass?: string;
  /** `resources.team`: the team the job runs for (default: the submitter's primary team). */
  team?: string;
  name?: string;
  follow?: boolean;
  /** Ask what would happen (start, preempt whom, wait why); submit nothing. */
  dryRun?: boolean;
}

export interface SweepFlags extends Omit<SubmitFlags, "follow" | "dryRun"> {
  setGrid?: string[];
  max: string;
}
