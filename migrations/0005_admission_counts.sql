CREATE TABLE `admission_counts` (
	`user_id` text PRIMARY KEY NOT NULL,
	`active` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
DROP INDEX `admissions_user_state`;--> statement-breakpoint
CREATE INDEX `admissions_user_state` ON `admissions` (`user_id`,`state`,`created_at`);--> statement-breakpoint
-- Each user's active admissions, counted once now and kept by the triggers below from here on.
INSERT INTO `admission_counts` (`user_id`, `active`)
  SELECT `user_id`, COUNT(*) FROM `admissions` WHERE `state` = 'active' GROUP BY `user_id`;--> statement-breakpoint
CREATE TRIGGER `admission_counts_insert` AFTER INSERT ON `admissions` WHEN NEW.`state` = 'active'
BEGIN
  INSERT INTO `admission_counts` (`user_id`, `active`) VALUES (NEW.`user_id`, 1)
    ON CONFLICT (`user_id`) DO UPDATE SET `active` = `active` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `admission_counts_delete` AFTER DELETE ON `admissions` WHEN OLD.`state` = 'active'
BEGIN
  UPDATE `admission_counts` SET `active` = `active` - 1 WHERE `user_id` = OLD.`user_id`;
END;--> statement-breakpoint
CREATE TRIGGER `admission_counts_update` AFTER UPDATE OF `state`, `user_id` ON `admissions`
  WHEN (OLD.`state` = 'active') OR (NEW.`state` = 'active')
BEGIN
  UPDATE `admission_counts` SET `active` = `active` - 1 WHERE `user_id` = OLD.`user_id` AND OLD.`state` = 'active';
  INSERT INTO `admission_counts` (`user_id`, `active`) SELECT NEW.`user_id`, 1 WHERE NEW.`state` = 'active'
    ON CONFLICT (`user_id`) DO UPDATE SET `active` = `active` + 1;
END;--> statement-breakpoint
-- The configuration an admission reads (fleets, hardware profiles, recipes, the published capsule) is
-- cached per Worker isolate under this generation, which every change to it bumps in the same statement.
INSERT OR IGNORE INTO `meta` (`key`, `value`) VALUES ('config_gen', '0');--> statement-breakpoint
CREATE TRIGGER `config_gen_fleets_insert` AFTER INSERT ON `fleets` BEGIN
  UPDATE `meta` SET `value` = CAST(`value` AS INTEGER) + 1 WHERE `key` = 'config_gen'; END;--> statement-breakpoint
CREATE TRIGGER `config_gen_fleets_update` AFTER UPDATE ON `fleets` BEGIN
  UPDATE `meta` SET `value` = CAST(`value` AS INTEGER) + 1 WHERE `key` = 'config_gen'; END;--> statement-breakpoint
CREATE TRIGGER `config_gen_fleets_delete` AFTER DELETE ON `fleets` BEGIN
  UPDATE `meta` SET `value` = CAST(`value` AS INTEGER) + 1 WHERE `key` = 'config_gen'; END;--> statement-breakpoint
CREATE TRIGGER `config_gen_profiles_insert` AFTER INSERT ON `profiles` BEGIN
  UPDATE `meta` SET `value` = CAST(`value` AS INTEGER) + 1 WHERE `key` = 'config_gen'; END;--> statement-breakpoint
CREATE TRIGGER `config_gen_profiles_update` AFTER UPDATE ON `profiles` BEGIN
  UPDATE `meta` SET `value` = CAST(`value` AS INTEGER) + 1 WHERE `key` = 'config_gen'; END;--> statement-breakpoint
CREATE TRIGGER `config_gen_profiles_delete` AFTER DELETE ON `profiles` BEGIN
  UPDATE `meta` SET `value` = CAST(`value` AS INTEGER) + 1 WHERE `key` = 'config_gen'; END;--> statement-breakpoint
CREATE TRIGGER `config_gen_recipes_insert` AFTER INSERT ON `recipes` BEGIN
  UPDATE `meta` SET `value` = CAST(`value` AS INTEGER) + 1 WHERE `key` = 'config_gen'; END;--> statement-breakpoint
CREATE TRIGGER `config_gen_recipes_update` AFTER UPDATE ON `recipes` BEGIN
  UPDATE `meta` SET `value` = CAST(`value` AS INTEGER) + 1 WHERE `key` = 'config_gen'; END;--> statement-breakpoint
CREATE TRIGGER `config_gen_recipes_delete` AFTER DELETE ON `recipes` BEGIN
  UPDATE `meta` SET `value` = CAST(`value` AS INTEGER) + 1 WHERE `key` = 'config_gen'; END;--> statement-breakpoint
CREATE TRIGGER `config_gen_capsule_insert` AFTER INSERT ON `meta` WHEN NEW.`key` = 'capsule' BEGIN
  UPDATE `meta` SET `value` = CAST(`value` AS INTEGER) + 1 WHERE `key` = 'config_gen'; END;--> statement-breakpoint
CREATE TRIGGER `config_gen_capsule_update` AFTER UPDATE ON `meta` WHEN NEW.`key` = 'capsule' BEGIN
  UPDATE `meta` SET `value` = CAST(`value` AS INTEGER) + 1 WHERE `key` = 'config_gen'; END;
