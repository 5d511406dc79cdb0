-- Web console sign-ins (worker/console/session.ts, which declares the table). The browser holds an opaque
-- random cookie; only its sha256 is kept. A session acts as the personal access token that signed it in:
-- revoking or expiring that token, or disabling its user, ends the session.
CREATE TABLE `console_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`token_id` text NOT NULL,
	`created_at` text NOT NULL,
	`idle_expires_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`user_agent` text,
	FOREIGN KEY (`token_id`) REFERENCES `tokens`(`id`) ON UPDATE no action ON DELETE no action
);
CREATE INDEX `console_sessions_token` ON `console_sessions` (`token_id`);
