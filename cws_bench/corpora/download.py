"""Downloading and unpacking corpus archives: temp file + rename, checksums, progress bars.

Nothing here is ever half-written: a download goes to a temporary file beside
its target and is renamed into place only once complete (and, when a SHA-256
is known, checked); members extracted from a zip go to a temporary folder that
is renamed into place only once every pinned member has its pinned hash.
"""

from __future__ import annotations

import hashlib
import http.client
import logging
import os
import urllib.error
import urllib.request
import zipfile
from collections.abc import Mapping
from pathlib import Path

from cws_bench.errors import CwsBenchError, Fix
from cws_bench.system.temporaries import discard, make_temporary
from cws_bench.text.io import PathLike, atomic_write

__all__ = [
    "CACHE_VARIABLE",
    "ChecksumMismatchError",
    "cache_dir",
    "download_file",
    "extract_members",
    "file_sha256",
    "open_zip",
]

log = logging.getLogger(__name__)

CACHE_VARIABLE = "CWS_BENCH_CACHE_DIR"
CHUNK = 1 << 16


class ChecksumMismatchError(CwsBenchError):
    """A file's SHA-256 is not the one pinned for it."""

    def __init__(self, name: str, expected: str, actual: str, hint: str | None = None) -> None:
        super().__init__(
            f"{name}: SHA-256 {actual} differs from the expected {expected}",
            hint
            or "the file is not the one that was released (corrupt, edited or re-encoded); "
            "download it again",
        )
        self.expected = expected
        self.actual = actual


def cache_dir(override: PathLike | None = None) -> Path:
    """The folder cws-bench caches downloads in.

    ``override`` first, then ``$CWS_BENCH_CACHE_DIR``, then the user's cache
    folder as platformdirs gives it (``~/.cache/cws-bench`` on Linux).
    """
    if override is not None:
        return Path(override)
    if os.environ.get(CACHE_VARIABLE):
        return Path(os.environ[CACHE_VARIABLE])
    import platformdirs

    return Path(platformdirs.user_cache_dir("cws-bench", appauthor=False))


def file_sha256(path: PathLike) -> str:
    """The SHA-256 of a file, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download_file(
    url: str,
    target: PathLike,
    *,
    sha256: str | None = None,
    progress: bool = False,
    timeout: float = 60.0,
) -> str:
    """Download ``url`` to ``target`` through a temporary file; return its SHA-256.

    Args:
        url: the address (http, https or file).
        target: where the file goes; its folder is created.
        sha256: the expected SHA-256, checked before the file is moved into place.
        progress: show a tqdm progress bar on stderr.
        timeout: seconds to wait for the server.

    Raises:
        CwsBenchError: the server cannot be reached or answers with an error.
        ChecksumMismatchError: the download's SHA-256 is not ``sha256`` (nothing is kept).
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    try:
        response = urllib.request.urlopen(url, timeout=timeout)
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise CwsBenchError(
            f"cannot download {url}: {getattr(e, 'reason', e)}",
            "check the address and your connection, or download it by hand and "
            f"pass its folder with {{0}} (expected file: {target.name})",
            fixes=(Fix("data_dir", metavar="FOLDER"),),
        ) from e
    from tqdm import tqdm

    total = response.headers.get("Content-Length")
    size = int(total) if total and total.isdigit() else None
    with (
        response,
        atomic_write(target, encoding=None) as out,
        tqdm(
            total=size,
            unit="B",
            unit_scale=True,
            unit_divisor=1024,
            desc=target.name,
            leave=False,
            disable=not progress,
        ) as bar,
    ):
        received = 0
        while True:
            try:
                chunk = response.read(CHUNK)
            except (OSError, http.client.HTTPException) as e:
                raise CwsBenchError(
                    f"download of {url} broke off after {received:,} bytes: {e}",
                    "try again; nothing was kept",
                ) from e
            if not chunk:
                break
            received += len(chunk)
            out.write(chunk)
            digest.update(chunk)
            bar.update(len(chunk))
        if size is not None and received != size:
            # http.client returns a short body without an error when the server hangs up
            raise CwsBenchError(
                f"download of {url} broke off after {received:,} of {size:,} bytes",
                "try again; nothing was kept",
            )
        actual = digest.hexdigest()
        if sha256 is not None and actual != sha256:
            raise ChecksumMismatchError(f"{target.name} downloaded from {url}", sha256, actual)
    log.info("downloaded %s to %s (sha256 %s)", url, target, actual)
    return actual


def open_zip(archive: Path) -> zipfile.ZipFile:
    """The zip file ``archive``, or an error saying it is not one."""
    try:
        return zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as e:
        raise CwsBenchError(
            f"{archive}: not a readable zip file ({e})",
            "a download may have been cut short: delete the file and get it again",
        ) from e


def extract_members(
    archive: PathLike,
    members: Mapping[str, str],
    destination: PathLike,
    *,
    pinned: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Extract zip members into a new folder, checking pinned hashes; all or nothing.

    Args:
        archive: the zip file.
        members: archive member name -> path relative to ``destination``.
        destination: the folder to create; it must not exist yet (if another
            process created it meanwhile, its copy is kept).
        pinned: relative path -> expected SHA-256 for the members that have one.

    Returns:
        relative path -> ``verified`` or ``unverified`` (no pinned hash).

    Raises:
        CwsBenchError: the archive is not a readable zip, or lacks a member.
        ChecksumMismatchError: a member's hash differs from its pinned one.
    """
    archive = Path(archive)
    destination = Path(destination)
    pinned = pinned or {}
    destination.parent.mkdir(parents=True, exist_ok=True)
    status: dict[str, str] = {}
    _, made = make_temporary(os.fspath(destination), folder=True)
    temporary = Path(made)
    try:
        with open_zip(archive) as zip_file:
            for member, relative in members.items():
                out_path = temporary / relative
                out_path.parent.mkdir(parents=True, exist_ok=True)
                digest = hashlib.sha256()
                try:
                    with zip_file.open(member) as source, open(out_path, "wb") as out:
                        for chunk in iter(lambda: source.read(CHUNK), b""):
                            out.write(chunk)
                            digest.update(chunk)
                except KeyError as e:
                    raise CwsBenchError(f"{archive}: no member {member}") from e
                except (zipfile.BadZipFile, OSError) as e:
                    raise CwsBenchError(f"{archive}: cannot extract {member}: {e}") from e
                actual = digest.hexdigest()
                expected = pinned.get(relative)
                if expected is not None and actual != expected:
                    raise ChecksumMismatchError(
                        f"{archive}: member {member}",
                        expected,
                        actual,
                        "the archive is not the official release (corrupt or altered); "
                        "delete it and download it again",
                    )
                status[relative] = "verified" if expected is not None else "unverified"
        try:
            os.replace(temporary, destination)
        except OSError:
            if not destination.is_dir():
                raise
            # another process extracted the same members first: keep theirs
    finally:
        discard(made)
    return status
