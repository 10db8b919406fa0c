"""Error analysis of a scored pair: aligned sentences, error patterns, buckets."""
