-- Counters of GET /v1/admin/metrics that no other row records: admission outcomes (a refused submit
-- leaves no row) and items accepted by job-side ingest. Written by worker/services/metrics-counters.ts,
-- which declares the table; each row only ever grows.
CREATE TABLE `metric_counters` (
	`metric` text NOT NULL,
	`label` text NOT NULL,
	`value` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`metric`, `label`)
);
