"""Your segmenter as a Python function in a bake-off (README, "A Python function").

Run from the project's root: python docs/examples/my_bakeoff.py
"""

import jieba

from cws_bench import run_bakeoff

tokenizer = None  # built on first use, in each worker: a model is not sent to the workers


def mine(line: str) -> list[str]:
    """A line in, its words out: put your own segmenter here."""
    global tokenizer
    if tokenizer is None:
        tokenizer = jieba.Tokenizer()
    return tokenizer.lcut(line)


if __name__ == "__main__":  # the worker processes import this file: run the bake-off only here
    result = run_bakeoff("docs/examples/pku.toml", segmenters={"mine": mine})
    print(result.leaderboard("sighan2005-pku", "open")[0])
