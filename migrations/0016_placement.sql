-- Placement over several fleets (docs/scheduling.md "Placement over several fleets"): each fleet's labels,
-- which a job's fleet selector matches, and the capacity summary its Fleet DO publishes when it changed
-- (a table of its own: a change to `fleets` moves the configuration generation).
ALTER TABLE `fleets` ADD `labels` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
CREATE TABLE `fleet_capacity` (
	`fleet_id` text PRIMARY KEY NOT NULL,
	`capacity` text NOT NULL,
	`updated_at` text NOT NULL
);
