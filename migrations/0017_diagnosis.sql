-- Failure diagnosis (docs/operations.md "Failure diagnosis"): a failed run's class, root-cause rank and
-- line, hint and the action taken (JSON StoredDiagnosis, contract/diagnosis-policy.ts), projected by its
-- Fleet DO once diagnosed.
ALTER TABLE `runs` ADD `diagnosis` text;
