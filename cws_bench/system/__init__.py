"""The operating system seam: worker processes and stop handling, temporary files, peak memory."""
