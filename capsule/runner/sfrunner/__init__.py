"""The Job Capsule runner: verifies the run directory, runs the recipe's training process and streams
its lifecycle, logs and checkpoints to StarForge ingest. Python 3 standard library only."""
