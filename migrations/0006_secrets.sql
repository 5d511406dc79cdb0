CREATE TABLE `secrets` (
	`scope` text NOT NULL,
	`owner_id` text NOT NULL,
	`name` text NOT NULL,
	`key_id` text NOT NULL,
	`sealed` text NOT NULL,
	`set_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`scope`, `owner_id`, `name`)
);
