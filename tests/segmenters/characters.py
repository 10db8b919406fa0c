"""A small external segmenter for the tests: one character a word, with ways to misbehave.

Reads raw lines on stdin, writes each line's characters separated by spaces.

    python characters.py [--crash | --hang | --drop-last | --bad-bytes | --normalize | --slow]
"""

from __future__ import annotations

import sys
import time


def main(argv: list[str]) -> int:
    mode = argv[1] if len(argv) > 1 else ""
    data = sys.stdin.buffer.read().decode("utf-8")
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if mode == "--crash":
        sys.stderr.write("Traceback (most recent call last):\nValueError: model file missing\n")
        return 3
    if mode == "--hang":
        sys.stderr.write("loading...\n")
        sys.stderr.flush()
        time.sleep(60)
    if mode == "--drop-last":
        lines = lines[:-1]
    out = []
    for line in lines:
        words = [c for c in line if not c.isspace()]
        if mode == "--normalize":
            words = [chr(ord(c) - 0xFEE0) if "０" <= c <= "９" else c for c in words]
        out.append(" ".join(words))
    payload = "".join(line + "\n" for line in out).encode("utf-8")
    if mode == "--bad-bytes":
        payload = b"\xff\xfe" + payload
    sys.stdout.buffer.write(payload)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
