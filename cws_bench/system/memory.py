"""Peak resident memory of this process, portably.

POSIX systems report it through ``getrusage`` (Linux in KiB, macOS in
bytes); Windows has no ``resource`` module, and psutil reports the peak
working set there (``peak_wset``).

>>> peak_memory_mib() > 0
True
"""

from __future__ import annotations

import sys

__all__ = ["peak_memory_mib"]

MIB = 1024 * 1024


def peak_memory_mib() -> float:
    """The peak resident set size of the current process so far, in MiB."""
    if sys.platform == "win32":  # pragma: no cover - not a platform CI runs on
        import psutil

        return float(psutil.Process().memory_info().peak_wset) / MIB
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS (and the BSDs' Darwin) bytes.
    return peak / MIB if sys.platform == "darwin" else peak / 1024
