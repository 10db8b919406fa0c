"""What a run produced: the bake-off result model and its verdicts, the cached pair records,
the published rows."""
