"""ddp: tinylm with DistributedDataParallel across a run's ranks; see ddp.train."""
