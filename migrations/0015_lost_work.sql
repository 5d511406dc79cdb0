-- Of a run's GPU-seconds per day, what it trained past its last checkpoint before a preemption stopped
-- it: lost work, shown apart in usage by team.
ALTER TABLE `run_usage` ADD `lost_gpu_seconds` real DEFAULT 0 NOT NULL;
