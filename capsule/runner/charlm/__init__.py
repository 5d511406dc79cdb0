"""charlm: the python/charlm recipe (pure-Python character language model); see charlm.train."""
