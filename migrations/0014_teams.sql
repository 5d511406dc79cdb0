-- Teams (contract/teams.ts): members and per fleet and series quotas. Every Fleet DO holds the names,
-- the members and its own quotas (pushed when an admin changes them), so no submit and no scheduling
-- decision reads these tables.
CREATE TABLE `teams` (
	`name` text PRIMARY KEY NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	-- GPU-hour budgets per calendar month and ISO week (UTC); null: none. What a spent budget does.
	`monthly_gpu_hours` real,
	`weekly_gpu_hours` real,
	`budget_policy` text DEFAULT 'refuse' NOT NULL,
	`created_at` text NOT NULL
);--> statement-breakpoint
CREATE TABLE `team_members` (
	`team` text NOT NULL REFERENCES `teams`(`name`) ON DELETE CASCADE,
	`user_id` text NOT NULL REFERENCES `users`(`id`),
	-- 1 on exactly one of a user's teams: the team of their jobs that name none.
	`is_primary` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY (`team`, `user_id`)
);--> statement-breakpoint
CREATE INDEX `team_members_user` ON `team_members` (`user_id`);--> statement-breakpoint
CREATE TABLE `team_quotas` (
	`team` text NOT NULL REFERENCES `teams`(`name`) ON DELETE CASCADE,
	`fleet_id` text NOT NULL,
	`series` text NOT NULL,
	`guaranteed` integer NOT NULL,
	`borrow_limit` integer,
	`lend_limit` integer,
	`weight` real DEFAULT 1 NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY (`team`, `fleet_id`, `series`)
);--> statement-breakpoint
-- Budget alerts sent, once per team, period and threshold (80 and 100 %).
CREATE TABLE `budget_alerts` (
	`team` text NOT NULL,
	`period` text NOT NULL,
	`threshold` integer NOT NULL,
	`at` text NOT NULL,
	PRIMARY KEY (`team`, `period`, `threshold`)
);--> statement-breakpoint
-- Preemptions that may start in a fleet per minute (anti-thrash), per fleet.
ALTER TABLE `fleets` ADD `preemptions_per_minute` integer DEFAULT 10 NOT NULL;--> statement-breakpoint
-- Each job's team, and whether a run used GPUs beyond its team's guarantee, projected from its Fleet DO.
ALTER TABLE `jobs` ADD `team` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `borrowed` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Usage per run and day carries its team and whether the run borrowed (usage by team, budgets).
ALTER TABLE `run_usage` ADD `team` text;--> statement-breakpoint
ALTER TABLE `run_usage` ADD `borrowed` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `run_usage_team_day` ON `run_usage` (`team`, `day`);
