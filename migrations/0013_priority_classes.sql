-- Priority classes (contract/priority-classes.ts): the classes an admin set or changed. The five built-ins
-- need no row; a row overrides a built-in's attributes or adds a class. Every Fleet DO holds the whole
-- list (pushed when it changes), so no submit and no scheduling decision reads this table.
CREATE TABLE `priority_classes` (
	`name` text PRIMARY KEY NOT NULL,
	`body` text NOT NULL,
	`updated_at` text NOT NULL
);--> statement-breakpoint
-- The highest class a user's jobs may ask for (by value).
ALTER TABLE `quotas` ADD `max_priority_class` text DEFAULT 'normal' NOT NULL;
--> statement-breakpoint
-- Each job's priority class, projected from its Fleet DO.
ALTER TABLE `jobs` ADD `priority_class` text DEFAULT 'normal' NOT NULL;
