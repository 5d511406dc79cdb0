-- Failure diagnosis (docs/operations.md "Failure diagnosis"): a failed run's class, root-cause rank and
-- line, hint and the action taken (JSON StoredDiagnosis, contract/diagnosis-policy.ts), projected by its
-- Fleet DO once diagnosed.
ALTER TABLE `runs` ADD `diagnosis` text;
-- A fleet's own failure rules (a pattern or an exit code → class, hint, action) and per-class retry overrides
-- (JSON FleetDiagnosis), tried before the built-in ones.
ALTER TABLE `fleets` ADD `diagnosis` text DEFAULT '{}' NOT NULL;
