"""A segmenter as a program, for `cws-bench segment -s command` (README, "A program").

It reads raw sentences on standard input, one a line, and prints each one's
words separated by spaces, one line out for every line in. Put your own
segmenter where jieba is.
"""

import sys

import jieba

tokenizer = jieba.Tokenizer()  # its own dictionary: no global state, nothing printed on stdout

for line in sys.stdin:
    print(" ".join(tokenizer.lcut(line.strip())))
