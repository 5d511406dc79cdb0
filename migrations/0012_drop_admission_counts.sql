-- Each user's active-job count moved to the user's Durable Object (durable-objects/user, issue 26), which
-- owns the user's slots against max_jobs; nothing reads admission_counts any more. Its triggers fired on
-- every projected admission and every change of its state: two more rows written in D1 per job.
DROP TRIGGER IF EXISTS `admission_counts_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `admission_counts_delete`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `admission_counts_update`;--> statement-breakpoint
DROP TABLE IF EXISTS `admission_counts`;
