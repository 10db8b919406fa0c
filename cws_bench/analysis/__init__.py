"""Error analysis of a scored pair (aligned sentences, error patterns, buckets) and of
segmentations without gold (agreement, consistency, perturbation flips)."""
