"""What the neural adapters share: devices, dtypes, model identities, character tags.

None of this imports torch at module import; :func:`resolve_device` and
:func:`default_device` import it when called.

Character tags
--------------
Character taggers label each character with its place in a word. Every
scheme in use maps to four roles: ``B`` (begins a word), ``M`` (inside),
``E`` (ends it), ``S`` (a one-character word). ``I`` (inside, in ``B/I``
and ``B/I/E/S``) is ``M``. :func:`tags_to_words` starts a word at the first
character, at every ``B`` or ``S``, and after every ``E`` or ``S``; a stray
``M`` after an ``E`` still starts a word, so any tag sequence gives words
that join back to the characters.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools
import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from cws_bench.defaults import Bounds
from cws_bench.display.units import plural
from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import Segmenter, option
from cws_bench.text.checksums import model_checksum as folder_checksum

__all__ = [
    "DTYPES",
    "ROLES",
    "HubSegmenter",
    "by_window",
    "character_id",
    "default_device",
    "device_option",
    "folder_checksum",
    "folder_problem",
    "label_roles",
    "max_length_option",
    "overlap_option",
    "resolve_device",
    "special_tokens",
    "tags_to_words",
    "window_sizes",
    "windows",
]

T = TypeVar("T")

ROLES = ("B", "M", "E", "S")
DTYPES = ("float32", "float16", "bfloat16")

_ROLE_WORDS = {
    word: role
    for role, words in zip(ROLES, ["B BEGIN", "M I MIDDLE INSIDE", "E END", "S SINGLE"])
    for word in words.split()
}


def _role(label: str) -> str | None:
    """The role of one label name, or None when it names none.

    >>> [_role(x) for x in ["B", "i", "B-WORD", "S_SEG", "seg-e", "LABEL_0", "O"]]
    ['B', 'M', 'B', 'S', 'E', None, None]
    """
    parts = [p for p in re.split(r"[-_.:/\s]+", label.strip().upper()) if p]
    roles = {_ROLE_WORDS[p] for p in parts if p in _ROLE_WORDS}
    return roles.pop() if len(roles) == 1 else None


def label_roles(
    name: str, id2label: Mapping[int, str], label_map: Mapping[str, str] | None = None
) -> list[str]:
    """The role (B, M, E or S) of each label id, from the model's label names.

    Label names are read case-insensitively, alone or with a prefix or
    suffix (``B``, ``B-WORD``, ``seg_S``, ``BEGIN``); ``label_map`` maps names
    that cannot be read that way (``{"LABEL_0": "B", "LABEL_1": "I"}``).

    >>> label_roles("demo", {0: "B", 1: "I"})
    ['B', 'M']
    >>> label_roles("demo", {0: "LABEL_0", 1: "LABEL_1"}, {"LABEL_0": "B", "LABEL_1": "I"})
    ['B', 'M']

    Raises:
        SegmenterError: a label (or a ``label_map`` value) names no role,
            naming every label and how to map them.
    """
    if not id2label:
        raise SegmenterError(name, "the model's config has no labels (id2label is empty)")
    ids = sorted(int(i) for i in id2label)
    if ids != list(range(len(ids))):
        raise SegmenterError(name, f"the model's label ids are not 0..n-1: {ids}")
    labels = [str(id2label[i] if i in id2label else id2label[str(i)]) for i in ids]  # type: ignore[index]
    mapping = {str(k): str(v) for k, v in (label_map or {}).items()}
    roles = [_role(mapping.get(label, label)) or "?" for label in labels]
    unreadable = [label for label, role in zip(labels, roles) if role == "?"]
    if unreadable:
        all_labels = ", ".join(repr(label) for label in labels)
        example = ", ".join(f'"{label}" = "{"BIES"[i]}"' for i, label in enumerate(unreadable[:4]))
        raise SegmenterError(
            name,
            f"cannot read the label(s) {', '.join(map(repr, unreadable))} as word boundaries "
            f"(the model's labels: {all_labels})",
            "map each label to B, M (or I), E or S with the label_map option, e.g. "
            f"label_map = {{ {example} }}",
        )
    if "B" not in roles and "S" not in roles:
        raise SegmenterError(
            name,
            f"no label begins a word (the model's labels: {', '.join(map(repr, labels))})",
            "map the labels to B, M (or I), E or S with the label_map option",
        )
    return roles


def tags_to_words(characters: Sequence[str], roles: Iterable[str]) -> list[str]:
    """Words from one role per character (see the module docstring).

    >>> tags_to_words("他说的确实", "SSBME")
    ['他', '说', '的确实']
    >>> tags_to_words("abcde", "MEMBM")  # stray tags still join back losslessly
    ['ab', 'c', 'de']
    """
    words: list[str] = []
    current: list[str] = []
    previous = "E"
    for character, role in zip(characters, roles):
        if current and (role in "BS" or previous in "ES"):
            words.append("".join(current))
            current = []
        current.append(character)
        previous = role
    if current:
        words.append("".join(current))
    return words


def default_device() -> str:
    """The device ``auto`` picks here: ``cuda:0`` when torch sees a GPU, else ``cpu``."""
    import torch

    return "cuda:0" if torch.cuda.is_available() else "cpu"


def resolve_device(name: str, device: str) -> tuple[str, str | None]:
    """``auto``/``cpu``/``cuda``/``cuda:N``/``mps`` as a torch device name, and the GPU's name.

    Raises:
        SegmenterError: an unknown device, or one this machine does not have.
    """
    import torch

    requested = device.strip().lower()
    if requested == "auto":
        requested = default_device()
    if requested == "cuda":
        requested = "cuda:0"
    if requested == "cpu":
        return "cpu", None
    if requested == "mps":
        backend = getattr(torch.backends, "mps", None)
        if backend is None or not backend.is_available():
            raise SegmenterError(name, "device mps: not available here", "use device = 'cpu'")
        return "mps", "Apple MPS"
    match = re.fullmatch(r"cuda:(\d+)", requested)
    if match is None:
        raise SegmenterError(
            name, f"unknown device {device!r}", "use auto, cpu, cuda, cuda:N (e.g. cuda:0) or mps"
        )
    index = int(match.group(1))
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if index >= count:
        seen = plural(count, "CUDA device") if count else "no CUDA device"
        raise SegmenterError(
            name,
            f"device {requested}: torch sees {seen} here",
            "use device = 'auto' or 'cpu' (or install a CUDA build of torch on a GPU machine)",
        )
    return requested, str(torch.cuda.get_device_name(index))


def load_pretrained(
    name: str, where: str, folder: str, model_class: Any, dtype: str, hint: str | None = None
) -> tuple[Any, Any]:
    """The tokenizer and the model (``model_class``, e.g. ``AutoModelForCausalLM``) saved
    in ``folder``, in ``dtype``; a folder without them is one :class:`SegmenterError`
    naming ``where`` (the model as the user gave it)."""
    import torch
    import transformers

    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
        # dtype is one of DTYPES: the options' choices
        model = model_class.from_pretrained(folder, dtype=getattr(torch, dtype))
    except (OSError, ValueError) as e:
        first = (str(e).splitlines() or [type(e).__name__])[0]
        raise SegmenterError(name, f"cannot load model {where!r}: {first}", hint) from e
    return tokenizer, model


def best_labels(
    model: Any, rows: Sequence[list[int]], around: tuple[list[int], list[int]], pad: int
) -> list[list[int]]:
    """The argmax label id of each position of each row of token ids (one batch), the
    special tokens ``around`` them (:func:`special_tokens`) added, padded with ``pad``."""
    import torch
    from torch.nn.utils.rnn import pad_sequence

    prefix, suffix = around
    full = [torch.tensor(prefix + row + suffix, dtype=torch.long) for row in rows]
    ids = pad_sequence(full, batch_first=True, padding_value=pad)
    mask = pad_sequence([torch.ones_like(row) for row in full], batch_first=True)
    device = next(model.parameters()).device
    with torch.inference_mode():
        logits = model(input_ids=ids.to(device), attention_mask=mask.to(device)).logits
        best = logits.argmax(-1).cpu().tolist()
    start = len(prefix)
    return [best[r][start : start + len(row)] for r, row in enumerate(rows)]


def batched(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """``items`` ``size`` at a time (:func:`itertools.batched`, which Python 3.10 lacks).

    >>> [list(batch) for batch in batched("abcde", 2)]
    [['a', 'b'], ['c', 'd'], ['e']]
    """
    return (items[start : start + size] for start in range(0, len(items), size))


def pieces(words: Iterable[str]) -> list[str]:
    """Words with the whitespace inside them cut out (whitespace is never part of a word).

    >>> pieces(["他说 ", "H", "o W", "了"])
    ['他说', 'H', 'o', 'W', '了']
    """
    return [piece for word in words for piece in word.split()]


def folder_problem(model: Any) -> tuple[str, str] | None:
    """A model named by a path (:func:`looks_like_path`) that is no folder, or None: what a
    load that may fetch a hub name checks first."""
    where = os.fspath(model)
    if os.path.isdir(where) or not looks_like_path(where):
        return None
    return (f"model folder {where}: no such folder", "fix the path, or download the model")


def hub_model_problem(model: Any) -> tuple[str, str] | None:
    """Why a model folder or Hugging Face hub name cannot be loaded here, or None.

    A path (``./x``, ``/x``, ``~/x`` or ``a/b/c``) must be a folder; a hub name
    (``owner/name``) must be in the hub's local cache (``hf download`` puts it
    there), so that a bake-off never stops on a download halfway through.
    """
    where = os.fspath(model)
    if os.path.isdir(where) or folder_problem(where):
        return folder_problem(where)
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # the adapter's library is missing: said elsewhere
        return None
    if isinstance(try_to_load_from_cache(where, "config.json"), str):
        return None
    return (
        f"model {where}: not in the local Hugging Face cache",
        f"download it first (on a machine with network): hf download {where}",
    )


# The fields the neural adapters' Options share.
device_option = functools.partial(
    option, "auto", "auto (CUDA if torch sees a GPU), cpu, cuda:N, mps"
)
max_length_option = functools.partial(
    option, None, "characters per window (default: the model's limit)", bounds=Bounds(True, 1)
)
overlap_option = functools.partial(
    option, None, "characters two windows share (default: a quarter)", bounds=Bounds(True, 0)
)


def window_sizes(name: str, opts: Any, limit: int) -> tuple[int, int]:
    """``(max_length, overlap)`` of a windowed adapter's options within the model's ``limit``
    (by default: the limit, and a quarter of it)."""
    size = opts.max_length or limit
    if not 1 <= size <= limit:
        raise SegmenterError(
            name, f"max_length {opts.max_length} is outside 1..{limit} (the model's limit)"
        )
    overlap = opts.overlap if opts.overlap is not None else size // 4
    if overlap >= size:
        raise SegmenterError(
            name, f"overlap {opts.overlap} must be at least 0 and below max_length"
        )
    return size, overlap


class HubSegmenter(Segmenter):
    """An adapter whose ``model`` option is a folder or a Hugging Face hub name: one not
    cached is a problem before a run (:meth:`model_problem`), not for a load, which
    fetches it (:meth:`load_problem`: only a folder that is not there)."""

    neural = True

    @classmethod
    def model_problem(cls, options: Mapping[str, Any]) -> tuple[str, str] | None:
        return hub_model_problem(cls.parsed(options).model)

    @classmethod
    def load_problem(cls, options: Mapping[str, Any]) -> tuple[str, str] | None:
        return folder_problem(cls.parsed(options).model)


def windows(length: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """The ``(start, end)`` windows that cover ``length`` characters.

    >>> windows(5, 8, 2)
    [(0, 5)]
    >>> windows(10, 4, 2)
    [(0, 4), (2, 6), (4, 8), (6, 10)]
    >>> windows(9, 4, 1)
    [(0, 4), (3, 7), (5, 9)]
    """
    if length <= size:
        return [(0, length)]
    starts = range(0, length - size, size - overlap)
    return [(start, start + size) for start in starts] + [(length - size, length)]


def owner(position: int, spans: list[tuple[int, int]]) -> int:
    """The window whose edges are farthest from ``position`` (the first on ties).

    >>> owner(3, [(0, 4), (2, 6)])
    1
    >>> owner(2, [(0, 4), (2, 6)])
    0
    """
    best, margin = 0, -1
    for index, (start, end) in enumerate(spans):
        if start <= position < end:
            room = min(position - start, end - 1 - position)
            if room > margin:
                best, margin = index, room
    return best


def by_window(
    lines: Sequence[str],
    size: int,
    overlap: int,
    batch_size: int,
    run: Callable[[list[str]], Sequence[T]],
    *,
    longest_first: bool = True,
) -> list[Iterator[tuple[T, int]]]:
    """``run`` on the windows of ``lines``, ``batch_size`` at a time (longest first, so a
    batch pads little); for each character of each line, what ``run`` gave for the window
    that owns it (:func:`owner`) and the character's offset in that window (read once)."""
    spans_of = [windows(len(line), size, overlap) for line in lines]
    jobs = [(i, w, *span) for i, spans in enumerate(spans_of) for w, span in enumerate(spans)]
    if longest_first:
        jobs.sort(key=lambda job: job[3] - job[2], reverse=True)
    found: dict[tuple[int, int], T] = {}
    for group in batched(jobs, batch_size):
        results = run([lines[i][start:end] for i, _, start, end in group])
        for (i, w, _, _), result in zip(group, results):
            found[i, w] = result
    # One pass over each line's characters, made as the caller reads it: a list of a tuple
    # per character of the whole input would keep the garbage collector busy.
    return [_owned(found, i, spans, len(lines[i])) for i, spans in enumerate(spans_of)]


def _owned(
    found: Mapping[tuple[int, int], T], index: int, spans: list[tuple[int, int]], length: int
) -> Iterator[tuple[T, int]]:
    if len(spans) == 1:  # most lines: one window, every offset its own
        result = found[index, 0]
        return ((result, p) for p in range(length))
    owners = (owner(p, spans) for p in range(length))
    return ((found[index, w], p - spans[w][0]) for p, w in enumerate(owners))


def cut_at(line: str, starts: Iterable[int]) -> list[str]:
    """``line`` cut before each position of ``starts`` (and at its whitespace).

    >>> cut_at("他说 Hello了", [0, 3, 8])
    ['他说', 'Hello', '了']
    """
    bounds = sorted({0, *starts, len(line)})
    return pieces(line[a:b] for a, b in itertools.pairwise(bounds))


def word_starts(text: str, words: Sequence[str]) -> list[int]:
    """Where in ``text`` each of ``words`` begins (whitespace in either is skipped).

    >>> word_starts("他说 Hello了", ["他说 ", "Hello", "了"])
    [0, 3, 8]

    Raises:
        ValueError: the words do not give back the text's characters.
    """
    starts: list[int] = []
    position = 0
    for word in words:
        characters = "".join(word.split())
        if not characters:
            continue
        while position < len(text) and text[position].isspace():
            position += 1
        starts.append(position)
        for character in characters:
            while position < len(text) and text[position].isspace():
                position += 1
            if position >= len(text) or text[position] != character:
                raise ValueError(f"the words {list(words)!r} do not give back {text!r}")
            position += 1
    if text[position:].strip():
        raise ValueError(f"the words {list(words)!r} do not give back {text!r}")
    return starts


#: Seconds to wait for the model hub (connecting, and each read) before giving up.
HUB_TIMEOUT = 10.0
HUB_TIMEOUT_VARIABLE = "CWS_BENCH_HUB_TIMEOUT"


def hub_timeout() -> float:
    """The hub wait: $CWS_BENCH_HUB_TIMEOUT seconds, else :data:`HUB_TIMEOUT`."""
    try:
        seconds = float(os.environ.get(HUB_TIMEOUT_VARIABLE, ""))
    except ValueError:  # unset, empty or not a number
        return HUB_TIMEOUT
    return seconds if seconds > 0 else HUB_TIMEOUT


def _fetch_hint(repo_id: str) -> str:
    return (
        f"on a machine with network run `hf download {repo_id} --local-dir FOLDER`, then pass "
        "that folder as the model (model = 'FOLDER')"
    )


def _without_retries(
    places: Sequence[tuple[str, str, str, Any]],
) -> list[tuple[Any, str, Any]]:
    """For each (module, function, keyword, value) in ``places`` whose function takes that
    keyword: (module, name, the function with that keyword always set to the value). A
    module or function a library version lacks, or whose signature changed, is left out."""
    import importlib

    found = []
    for module_name, name, keyword, value in places:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        function = getattr(module, name, None)
        if function is None or keyword not in inspect.signature(function).parameters:
            continue

        def fixed(*args: Any, _f: Any = function, _k: str = keyword, _v: Any = value, **kw: Any):
            return _f(*args, **{**kw, _k: _v})

        found.append((module, name, fixed))
    return found


# huggingface_hub's retry loops, each wait as long again (2.x): a file's metadata that did
# not come is asked 5 more times, 1, 2, 4, 8 and 8 s apart, and so is a page of a
# repository's file list; a download that stalls is resumed up to 5 times.
_HUB_RETRIES = (
    (
        "huggingface_hub.file_download",
        "_httpx2_follow_hub_redirects_with_backoff",
        "retry_on_errors",
        False,
    ),
    ("huggingface_hub.utils._pagination", "http_backoff", "max_retries", 0),
    ("huggingface_hub.file_download", "http_get", "_nb_retries", 0),
)


def _hub_settings(timeout: float) -> list[tuple[Any, str, Any]]:
    """(object, attribute, value) of what :func:`quiet_hub` sets in huggingface_hub."""
    from huggingface_hub import constants, file_download

    settings: list[tuple[Any, str, Any]] = [
        (constants, "HF_HUB_DOWNLOAD_TIMEOUT", timeout),
        (constants, "HF_HUB_ETAG_TIMEOUT", timeout),
    ]
    # A file whose metadata did not come in time is asked again with a wait of its own
    # (60 s in huggingface_hub 2.x): bounded the same way.
    if hasattr(file_download, "_ETAG_RETRY_TIMEOUT"):
        settings.append((file_download, "_ETAG_RETRY_TIMEOUT", timeout))
    return settings + _without_retries(_HUB_RETRIES)


@contextlib.contextmanager
def quiet_hub(timeout: float) -> Iterator[None]:
    """huggingface_hub quiet (no retry warnings, no progress bars), its waits bounded."""
    from unittest import mock

    import huggingface_hub.utils

    def bound_request(request: Any) -> None:
        waits = request.extensions.get("timeout") or {}
        request.extensions["timeout"] = {
            key: timeout if waits.get(key) is None else min(waits[key], timeout)
            for key in ("connect", "read", "write", "pool")
        }

    with contextlib.ExitStack() as restore:  # each put back on the way out
        for owner, name, value in _hub_settings(timeout):
            restore.enter_context(mock.patch.object(owner, name, value))
        for logger in map(logging.getLogger, ("huggingface_hub", "transformers", "filelock")):
            restore.callback(logger.setLevel, logger.level)
            logger.setLevel(logging.ERROR)
        # Calls that pass no timeout of their own, or None (listing a repository's
        # files), are bounded on their way out of the shared client.
        session = huggingface_hub.get_session()
        hooks = session.event_hooks
        saved = {key: list(value) for key, value in hooks.items()}
        restore.callback(setattr, session, "event_hooks", saved)
        session.event_hooks = {**hooks, "request": [*hooks.get("request", []), bound_request]}
        if not huggingface_hub.utils.are_progress_bars_disabled():
            restore.callback(huggingface_hub.utils.enable_progress_bars)
        huggingface_hub.utils.disable_progress_bars()
        yield


@contextlib.contextmanager
def bounded_network(timeout: float) -> Iterator[None]:
    """Every network wait inside bounded by ``timeout`` seconds, also in libraries that set
    no timeout of their own (HanLP's downloader, ``urllib.request.urlopen``): new sockets,
    ``requests`` calls (without retries: a retried wait would be another wait as long) and
    the Hugging Face hub (:func:`quiet_hub`); everything is restored on the way out."""
    import socket
    from unittest import mock

    with contextlib.ExitStack() as restore:
        with contextlib.suppress(ImportError):  # no requests: nothing of it to bound
            from requests.adapters import HTTPAdapter
            from urllib3.util.retry import Retry

            send = HTTPAdapter.send

            def bounded_send(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
                if kwargs.get("timeout") is None:
                    kwargs["timeout"] = (timeout, timeout)
                self.max_retries = Retry(total=0, read=False, redirect=10)
                return send(self, request, *args, **kwargs)

            restore.enter_context(mock.patch.object(HTTPAdapter, "send", bounded_send))
        restore.callback(socket.setdefaulttimeout, socket.getdefaulttimeout())
        socket.setdefaulttimeout(timeout)
        with contextlib.suppress(ImportError):  # no huggingface_hub: no hub to wait for
            restore.enter_context(quiet_hub(timeout))
        yield


def hub_folder(name: str, repo_id: str, revision: str | None = None) -> str:
    """The local folder of the hub model ``repo_id``: from the local cache, else (unless
    ``HF_HUB_OFFLINE``) downloaded once the hub said it has it, every wait bounded by
    :func:`hub_timeout` (docs/NEURAL.md, "Pointing the adapters at downloaded models").

    Raises:
        SegmenterError: one line: not cached, and offline, unreachable or
            unknown to the hub; with how to point at a local folder.
    """
    from huggingface_hub import HfApi, constants, snapshot_download

    try:
        with quiet_hub(hub_timeout()):
            return str(snapshot_download(repo_id, revision=revision, local_files_only=True))
    except Exception:
        pass
    if constants.HF_HUB_OFFLINE:
        raise SegmenterError(
            name,
            f"model {repo_id!r} is not in the local Hugging Face cache (HF_HUB_OFFLINE is set)",
            _fetch_hint(repo_id),
        )
    timeout = hub_timeout()
    with bounded_network(timeout):
        try:
            HfApi().model_info(repo_id, revision=revision, timeout=timeout)
        except Exception as e:
            reason = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise SegmenterError(
                name,
                f"model {repo_id!r} is not in the local Hugging Face cache and the hub did "
                f"not give it within {timeout:g} s ({type(e).__name__}: {reason[:160]})",
                f"{_fetch_hint(repo_id)}; ${HUB_TIMEOUT_VARIABLE} sets the wait",
            ) from None
        try:
            return str(snapshot_download(repo_id, revision=revision, etag_timeout=timeout))
        except Exception as e:
            raise SegmenterError(
                name,
                f"cannot download model {repo_id!r}: {type(e).__name__}: "
                f"{(str(e).splitlines() or [''])[0][:160]}",
                _fetch_hint(repo_id),
            ) from None


def looks_like_path(where: str) -> bool:
    """Whether ``where`` names a folder rather than a hub name (``org/name``)."""
    return where.startswith((".", "/", "~")) or where.count("/") > 1 or "\\" in where


def character_id(tokenizer: Any, character: str) -> int:
    """A tokenizer's id for one character: its single token, else the unknown token."""
    pieces = tokenizer.encode(character, add_special_tokens=False)
    unknown = tokenizer.unk_token_id
    return int(pieces[0]) if len(pieces) == 1 else (unknown if unknown is not None else 0)


def special_tokens(tokenizer: Any) -> tuple[list[int], list[int]]:
    """The ids a tokenizer puts before and after a sentence (``[CLS]``, ``[SEP]``...)."""
    for probe in "的一是中人a0":  # the first that is one token alone
        inner = tokenizer.encode(probe, add_special_tokens=False)
        if len(inner) == 1:
            outer = tokenizer.encode(probe, add_special_tokens=True)
            at = outer.index(inner[0])
            return list(outer[:at]), list(outer[at + 1 :])
    return [], []
