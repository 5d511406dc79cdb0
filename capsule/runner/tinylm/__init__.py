"""tinylm: a tiny PyTorch character language model; see tinylm.train."""
