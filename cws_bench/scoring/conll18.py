"""The word score of the CoNLL 2018 UD shared task (``conll18_ud_eval.py``), for segmentation.

Universal Dependencies papers report segmentation with the shared task's
official script (Zeman et al. 2018, ``conll18_ud_eval.py``), whose numbers
differ from a line-by-line interval score; ``cws-bench score --method conll18``
reimplements the part of it that scores segmentation:

* **Spans over the whole file**: every token and word is a span of character
  offsets into the concatenation of the file's FORMs; sentence breaks play no
  part in the Words and Tokens scores (they are scored as Sentences).
* **Unicode spaces removed**: characters of category ``Zs`` are deleted from
  every FORM first (``10 000`` matches ``10000``); a FORM of spaces only is an error.
* **An error when the texts differ**, naming the first 20 differing
  characters and the line of each file where they are.
* **Words**: a word outside multi-word tokens is correct iff its span is a gold
  word's. Around a multi-word token on either side, the region (extended until
  both sides end together) is aligned by the longest common subsequence of the
  lower-cased FORMs, as ``align_words`` does. P = correct / system words,
  R = correct / gold words, F1 = 2·correct / (gold + system).
* **Tokens** and **Sentences** are scored by span, as ``spans_score`` does.

The system side may be CoNLL-U or segmented text (one sentence a line), where
each word is a token and a word, and each non-empty line a sentence.

Not reproduced: the script's syntactic checks (HEAD, one root, no cycles) and
its dependency and tagging scores, which need a parser's output; a file the
script refuses for those reasons alone is scored here.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from cws_bench.display.formats import Renderable
from cws_bench.errors import CorpusFormatError, TextMismatchError, UnknownFormatError
from cws_bench.text.io import PathLike, display_name, iter_lines

__all__ = [
    "Conll18Result",
    "Span",
    "UDFile",
    "UDScore",
    "Word",
    "align_words",
    "evaluate",
    "evaluate_files",
    "load_conllu",
    "load_segmented",
    "sentence_words_score",
    "sniff_system_format",
    "spans_score",
]

ID, FORM = 0, 1


@dataclass(frozen=True, slots=True)
class Span:
    """``[start, end)`` in characters of the whole file; ``line`` is where it was read."""

    start: int
    end: int
    line: int = 0


@dataclass(frozen=True, slots=True)
class Word:
    """A syntactic word: the span of its token, whether the token is multi-word, its FORM."""

    span: Span
    is_multiword: bool
    form: str


@dataclass
class UDFile:
    """A file as the evaluation sees it (``UDRepresentation`` in the script)."""

    path: str
    characters: list[str] = field(default_factory=list)
    tokens: list[Span] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    sentences: list[Span] = field(default_factory=list)


@dataclass(frozen=True)
class UDScore:
    """Counts and scores of one metric (``Score`` in the script)."""

    gold: int
    system: int
    correct: int

    @property
    def precision(self) -> float:
        return self.correct / self.system if self.system else 0.0

    @property
    def recall(self) -> float:
        return self.correct / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        total = self.system + self.gold
        return 2 * self.correct / total if total else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "precision": self.precision, "recall": self.recall, "f1": self.f1}


@dataclass(frozen=True)
class Conll18Result(Renderable):
    """The Tokens, Sentences and Words scores of a system file against a gold file;
    :meth:`render` writes the script's verbose table (``text``) or the counts and
    scores as JSON (``json``)."""

    FORMATS: ClassVar[tuple[str, ...]] = ("text", "json")

    gold_path: str
    system_path: str
    tokens: UDScore
    sentences: UDScore
    words: UDScore
    method: str = "conll18"

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "gold": self.gold_path,
            "system": self.system_path,
            "tokens": self.tokens.to_dict(),
            "sentences": self.sentences.to_dict(),
            "words": self.words.to_dict(),
        }

    def to_text(self) -> str:
        lines = [
            f"{self.system_path} against {self.gold_path} "
            "(CoNLL 2018 UD shared task evaluation, scores in %)",
            "Metric     | Precision |    Recall |  F1 Score | AligndAcc",
            "-----------+-----------+-----------+-----------+-----------",
        ]
        for name, score in (
            ("Tokens", self.tokens),
            ("Sentences", self.sentences),
            ("Words", self.words),
        ):
            lines.append(
                f"{name:11}|{100 * score.precision:10.2f} |{100 * score.recall:10.2f} |"
                f"{100 * score.f1:10.2f} |"
            )
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)  # non-ASCII escaped, as it always was


def _strip_spaces(form: str) -> str:
    """FORM without its Unicode space separators (category Zs), as the script does."""
    if form.isascii() and " " not in form:
        return form
    return "".join(c for c in form if unicodedata.category(c) != "Zs")


def _columns(name: str, number: int, line: str, what: str = "") -> list[str]:
    columns = line.split("\t")
    if len(columns) != 10:
        raise CorpusFormatError(
            name, number, f"{len(columns)} tab-separated columns, expected 10{what}"
        )
    return columns


def _add_token(ud: UDFile, form: str, number: int, path: str) -> Span:
    form = _strip_spaces(form)
    if not form:
        raise CorpusFormatError(path, number, "there is an empty FORM (after removing spaces)")
    start = len(ud.characters)
    ud.characters.extend(form)
    span = Span(start, len(ud.characters), number)
    ud.tokens.append(span)
    return span


def load_conllu(path: PathLike, *, encoding: str = "utf-8") -> UDFile:
    """Read a CoNLL-U file as the script's ``load_conllu`` does (tokens, words, sentences).

    Comments before a sentence are skipped; empty nodes (``1.1``) are skipped;
    a multi-word token ``1-2`` is one token whose span its words share; word
    ids must count 1, 2, ... in each sentence; the file must end with an
    empty line.

    Raises:
        CorpusFormatError: what the script calls a ``UDError`` (a line without
            10 columns, an empty FORM, a bad or out-of-order id, a missing
            final empty line), naming the file and line.
    """
    name = display_name(path)
    ud = UDFile(name)
    lines = enumerate(iter_lines(path, encoding=encoding), start=1)
    sentence_start: int | None = None
    sentence_line = 0
    for number, line in lines:
        if sentence_start is None:
            if line.startswith("#"):
                continue
            ud.sentences.append(Span(len(ud.characters), 0, number))
            sentence_start = len(ud.words)
            sentence_line = number
        if not line:
            opened = ud.sentences[-1]
            ud.sentences[-1] = Span(opened.start, len(ud.characters), opened.line)
            sentence_start = None
            continue
        columns = _columns(name, number, line)
        if "." in columns[ID]:
            continue
        span = _add_token(ud, columns[FORM], number, name)
        if "-" in columns[ID]:
            first, _, last = columns[ID].partition("-")
            if not (first.isdigit() and last.isdigit()):
                raise CorpusFormatError(
                    name, number, f"cannot parse multi-word token id {columns[ID]!r}"
                )
            for _ in range(int(first), int(last) + 1):
                word_number, word_line = next(lines, (number + 1, ""))
                what = f" (a word of multi-word token {columns[ID]})"
                word_columns = _columns(name, word_number, word_line, what)
                ud.words.append(Word(span, True, word_columns[FORM]))
        else:
            if not columns[ID].isdigit():
                raise CorpusFormatError(name, number, f"cannot parse word id {columns[ID]!r}")
            expected = len(ud.words) - sentence_start + 1
            if int(columns[ID]) != expected:
                raise CorpusFormatError(
                    name,
                    number,
                    f"incorrect word id {columns[ID]!r} for word {columns[FORM]!r}, "
                    f"expected {expected}",
                )
            ud.words.append(Word(span, False, columns[FORM]))
    if sentence_start is not None:
        raise CorpusFormatError(
            name,
            sentence_line,
            "the CoNLL-U file does not end with an empty line",
            "every sentence, the last one too, ends with an empty line",
        )
    return ud


def load_segmented(path: PathLike, *, encoding: str = "utf-8") -> UDFile:
    """Read segmented text: each word a token and a word, each non-empty line a sentence."""
    ud = UDFile(display_name(path))
    for number, line in enumerate(iter_lines(path, encoding=encoding), start=1):
        if words := line.split():
            _add_sentence(ud, words, number)
    return ud


def _add_sentence(ud: UDFile, words: Sequence[str], number: int) -> None:
    """Add a segmented sentence (line ``number``): each word a token and a word."""
    start = len(ud.characters)
    for form in words:
        ud.words.append(Word(_add_token(ud, form, number, ud.path), False, form))
    ud.sentences.append(Span(start, len(ud.characters), number))


def sniff_system_format(path: PathLike, *, encoding: str = "utf-8") -> str:
    """``conllu`` when the file looks like CoNLL-U (name or first lines), else ``segmented``."""
    if str(path).endswith((".conllu", ".conll")):
        return "conllu"
    for line in iter_lines(path, encoding=encoding):
        if not line.strip():
            continue
        if line.startswith("#") or (line.count("\t") == 9 and line[:1].isdigit()):
            return "conllu"
        return "segmented"
    return "segmented"


# ---------------------------------------------------------------------------
# the evaluation


def spans_score(gold: list[Span], system: list[Span]) -> UDScore:
    """Spans equal in start and end, walking both sorted lists (the script's ``spans_score``)."""
    correct = gi = si = 0
    while gi < len(gold) and si < len(system):
        if system[si].start < gold[gi].start:
            si += 1
        elif gold[gi].start < system[si].start:
            gi += 1
        else:
            correct += gold[gi].end == system[si].end
            si += 1
            gi += 1
    return UDScore(len(gold), len(system), correct)


def _beyond_end(words: list[Word], i: int, end: int) -> bool:
    if i >= len(words):
        return True
    if words[i].is_multiword:
        return words[i].span.start >= end
    return words[i].span.end > end


def _extend_end(word: Word, end: int) -> int:
    if word.is_multiword and word.span.end > end:
        return word.span.end
    return end


def _multiword_region(
    gold: list[Word], system: list[Word], gi: int, si: int
) -> tuple[int, int, int, int]:
    """The smallest region around a multi-word token where both sides end together."""
    g, s = gold[gi].span, system[si].span
    if gold[gi].is_multiword:
        end = g.end
        if not system[si].is_multiword and s.start < g.start:
            si += 1
    else:  # the system's word is multi-word
        end = s.end
        if g.start < s.start:
            gi += 1
    gs, ss = gi, si
    while not _beyond_end(gold, gi, end) or not _beyond_end(system, si, end):
        if gi < len(gold) and (si >= len(system) or gold[gi].span.start <= system[si].span.start):
            end = _extend_end(gold[gi], end)
            gi += 1
        else:
            end = _extend_end(system[si], end)
            si += 1
    return gs, ss, gi, si


def _lcs_pairs(gold: list[str], system: list[str]) -> int:
    """Align two lists of lower-cased forms by LCS, taking matches greedily as the script does."""
    n, m = len(gold), len(system)
    lcs = [[0] * (m + 1) for _ in range(n + 1)]
    for g in reversed(range(n)):
        for s in reversed(range(m)):
            best = lcs[g + 1][s + 1] + 1 if gold[g] == system[s] else 0
            lcs[g][s] = max(best, lcs[g + 1][s], lcs[g][s + 1])
    matched = g = s = 0
    while g < n and s < m:
        if gold[g] == system[s]:
            matched += 1
            g += 1
            s += 1
        elif lcs[g][s] == lcs[g + 1][s]:
            g += 1
        else:
            s += 1
    return matched


def align_words(gold: list[Word], system: list[Word]) -> int:
    """The number of aligned words (the script's ``align_words``; all of them count as correct)."""
    aligned = gi = si = 0
    while gi < len(gold) and si < len(system):
        if gold[gi].is_multiword or system[si].is_multiword:
            gs, ss, gi, si = _multiword_region(gold, system, gi, si)
            if si > ss and gi > gs:
                aligned += _lcs_pairs(
                    [w.form.lower() for w in gold[gs:gi]],
                    [w.form.lower() for w in system[ss:si]],
                )
        else:
            g, s = gold[gi].span, system[si].span
            if (g.start, g.end) == (s.start, s.end):
                aligned += 1
                gi += 1
                si += 1
            elif g.start <= s.start:
                gi += 1
            else:
                si += 1
    return aligned


def sentence_words_score(gold: Sequence[str], system: Sequence[str]) -> UDScore:
    """The Words score of one sentence pair: the evaluation of the two sentences alone.

    A segmented sentence has no multi-word tokens, so its words align where
    their spans agree; the scores of sentences whose texts agree add up to the
    files' (spans are offsets into the text, which only shift from one sentence
    to the next): what a bake-off's ``method = "conll18"`` resamples.

    >>> sentence_words_score(["结婚", "的", "和", "尚未"], ["结婚", "的", "和尚", "未"])
    UDScore(gold=4, system=4, correct=2)

    Raises:
        TextMismatchError: the sentences' characters (without spaces) differ.
    """
    sides = []
    for name, words in (("gold", gold), ("system", system)):
        ud = UDFile(name)
        _add_sentence(ud, words, 1)
        sides.append(ud)
    if sides[0].characters != sides[1].characters:
        raise TextMismatchError(
            "the concatenation of tokens in gold and in system differ: gold "
            f"{''.join(sides[0].characters)[:20]!r}, system {''.join(sides[1].characters)[:20]!r}",
            "the CoNLL 2018 evaluation needs the same text on both sides (spaces aside)",
        )
    return UDScore(len(gold), len(system), align_words(sides[0].words, sides[1].words))


def _line_at(ud: UDFile, index: int) -> int:
    """The line of the token holding character ``index`` (or the last token's)."""
    for span in ud.tokens:
        if span.end > index:
            return span.line
    return ud.tokens[-1].line if ud.tokens else 0


def evaluate(gold: UDFile, system: UDFile) -> Conll18Result:
    """Score ``system`` against ``gold``: Tokens, Sentences, Words.

    Raises:
        TextMismatchError: the two files' characters (without spaces) differ.
    """
    if gold.characters != system.characters:
        index = 0
        limit = min(len(gold.characters), len(system.characters))
        while index < limit and gold.characters[index] == system.characters[index]:
            index += 1
        gold_part = "".join(gold.characters[index : index + 20])
        system_part = "".join(system.characters[index : index + 20])
        raise TextMismatchError(
            "the concatenation of tokens in gold file and in system file differ: "
            f"first 20 differing characters in gold file {gold_part!r} "
            f"({gold.path}:{_line_at(gold, index)}) and system file {system_part!r} "
            f"({system.path}:{_line_at(system, index)})",
            "the CoNLL 2018 evaluation needs the same text on both sides (spaces aside); "
            "segment the gold file's text",
        )
    return Conll18Result(
        gold.path,
        system.path,
        tokens=spans_score(gold.tokens, system.tokens),
        sentences=spans_score(gold.sentences, system.sentences),
        words=UDScore(len(gold.words), len(system.words), align_words(gold.words, system.words)),
    )


def evaluate_files(
    gold: PathLike,
    system: PathLike,
    *,
    encoding: str = "utf-8",
    system_encoding: str | None = None,
    system_format: str = "auto",
) -> Conll18Result:
    """Score a system file (CoNLL-U or segmented text) against a gold CoNLL-U file.

    ``system_encoding`` defaults to ``encoding``; ``system_format`` is ``conllu``,
    ``segmented`` (one sentence a line, words separated by whitespace) or ``auto``
    (:func:`sniff_system_format`).

    Raises:
        CorpusFormatError: a malformed line (file and line named).
        TextMismatchError: the texts differ.
    """
    system_encoding = system_encoding or encoding
    if system_format == "auto":
        system_format = sniff_system_format(system, encoding=system_encoding)
    if system_format not in ("conllu", "segmented"):
        raise UnknownFormatError(
            system_format, ("conllu", "segmented", "auto"), what="system format"
        )
    gold_ud = load_conllu(gold, encoding=encoding)
    if system_format == "conllu":
        system_ud = load_conllu(system, encoding=system_encoding)
    else:
        system_ud = load_segmented(system, encoding=system_encoding)
    return evaluate(gold_ud, system_ud)


FORMATS: tuple[str, ...] = Conll18Result.FORMATS
"""What a :class:`Conll18Result` renders."""
