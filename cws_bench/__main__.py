"""``python -m cws_bench``: the ``cws-bench`` command, for an environment without its script.

The guard matters: the bake-off's worker processes are spawned, and a spawned
process imports the parent's main module (this file, as ``__mp_main__``)
before it runs its task; the command runs only in the process that was started.
"""

from cws_bench.cli import main

if __name__ == "__main__":
    main()
