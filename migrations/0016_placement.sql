-- Placement over several fleets (docs/scheduling.md "Placement"): each fleet's labels, which a job's
-- fleet selector matches, and the compact capacity summary its Fleet DO publishes when it changed.
ALTER TABLE `fleets` ADD `labels` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `fleets` ADD `capacity` text;
