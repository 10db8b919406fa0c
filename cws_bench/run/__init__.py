"""A bake-off from configuration to result: configuration and validation, the plan, the
executors and shard tasks, one pair's scoring, comparisons."""
