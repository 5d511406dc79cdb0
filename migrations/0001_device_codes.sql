CREATE TABLE `device_codes` (
	`device_code_hash` text PRIMARY KEY NOT NULL,
	`user_code` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`user_id` text,
	`token_id` text,
	`interval_seconds` integer NOT NULL,
	`last_polled_at` integer,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `device_codes_user_code` ON `device_codes` (`user_code`);--> statement-breakpoint
CREATE INDEX `device_codes_expires` ON `device_codes` (`expires_at`);