CREATE TABLE `admissions` (
	`job_id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`fleet_id` text NOT NULL,
	`idem_key` text,
	`request_hash` text,
	`state` text NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `admissions_user_key` ON `admissions` (`user_id`,`idem_key`);--> statement-breakpoint
CREATE INDEX `admissions_user_state` ON `admissions` (`user_id`,`state`);--> statement-breakpoint
CREATE TABLE `blob_refs` (
	`digest` text NOT NULL,
	`job_id` text NOT NULL,
	PRIMARY KEY(`digest`, `job_id`)
);
--> statement-breakpoint
CREATE INDEX `blob_refs_job` ON `blob_refs` (`job_id`);--> statement-breakpoint
CREATE TABLE `blobs` (
	`digest` text PRIMARY KEY NOT NULL,
	`size` integer NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `enrollment_tokens` (
	`hash` text PRIMARY KEY NOT NULL,
	`fleet_id` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`expires_at` text NOT NULL,
	`used_at` text,
	`node_id` text,
	FOREIGN KEY (`fleet_id`) REFERENCES `fleets`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `fleets` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`image_allowlist` text DEFAULT '[]' NOT NULL,
	`windows` text DEFAULT '[]' NOT NULL,
	`draining` integer DEFAULT false NOT NULL,
	`drain_note` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fleets_name_unique` ON `fleets` (`name`);--> statement-breakpoint
CREATE TABLE `job_events` (
	`job_id` text NOT NULL,
	`seq` integer NOT NULL,
	`ts` text NOT NULL,
	`from_status` text,
	`to_status` text NOT NULL,
	`edge` text NOT NULL,
	`actor` text NOT NULL,
	`detail` text DEFAULT '{}' NOT NULL,
	PRIMARY KEY(`job_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`fleet_id` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`priority` integer NOT NULL,
	`gpus` integer NOT NULL,
	`recipe` text NOT NULL,
	`spec` text NOT NULL,
	`pending_reasons` text DEFAULT '[]' NOT NULL,
	`current_run_id` text,
	`version` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `jobs_user` ON `jobs` (`user_id`,`id`);--> statement-breakpoint
CREATE INDEX `jobs_fleet_status` ON `jobs` (`fleet_id`,`status`);--> statement-breakpoint
CREATE TABLE `meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `nodes` (
	`id` text PRIMARY KEY NOT NULL,
	`fleet_id` text NOT NULL,
	`name` text NOT NULL,
	`series` text NOT NULL,
	`gpus` integer NOT NULL,
	`gpus_allocated` integer DEFAULT 0 NOT NULL,
	`status` text NOT NULL,
	`labels` text DEFAULT '{}' NOT NULL,
	`version` integer NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `nodes_fleet_name` ON `nodes` (`fleet_id`,`name`);--> statement-breakpoint
CREATE TABLE `profiles` (
	`name` text PRIMARY KEY NOT NULL,
	`series` text NOT NULL,
	`gpus_per_node` integer NOT NULL,
	`default_gpus` integer NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `quotas` (
	`user_id` text PRIMARY KEY NOT NULL,
	`max_gpus` integer NOT NULL,
	`max_jobs` integer NOT NULL,
	`daily_gpu_hours` real NOT NULL,
	`allowed_profiles` text DEFAULT '[]' NOT NULL,
	`priority` integer DEFAULT 0 NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `recipes` (
	`name` text NOT NULL,
	`version` text NOT NULL,
	`digest` text NOT NULL,
	`body` text NOT NULL,
	`published_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`published_by` text NOT NULL,
	PRIMARY KEY(`name`, `version`)
);
--> statement-breakpoint
CREATE TABLE `run_usage` (
	`run_id` text NOT NULL,
	`day` text NOT NULL,
	`user_id` text NOT NULL,
	`fleet_id` text NOT NULL,
	`gpu_seconds` real NOT NULL,
	PRIMARY KEY(`run_id`, `day`)
);
--> statement-breakpoint
CREATE INDEX `run_usage_user_day` ON `run_usage` (`user_id`,`day`);--> statement-breakpoint
CREATE TABLE `runs` (
	`id` text PRIMARY KEY NOT NULL,
	`job_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`epoch` integer NOT NULL,
	`status` text NOT NULL,
	`placement` text NOT NULL,
	`gpus` integer NOT NULL,
	`user_id` text NOT NULL,
	`allocated_at` text NOT NULL,
	`ended_at` text,
	`exit_code` integer,
	`reason` text,
	`version` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `runs_job` ON `runs` (`job_id`);--> statement-breakpoint
CREATE INDEX `runs_user_active` ON `runs` (`user_id`,`ended_at`);--> statement-breakpoint
CREATE TABLE `tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`hash` text NOT NULL,
	`prefix` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`expires_at` text,
	`revoked_at` text,
	`last_used_at` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tokens_hash_unique` ON `tokens` (`hash`);--> statement-breakpoint
CREATE INDEX `tokens_user` ON `tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`email` text,
	`role` text NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_name_unique` ON `users` (`name`);