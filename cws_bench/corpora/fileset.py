"""Corpora made of a few plain files with pinned SHA-256, found in a folder or downloaded.

The multi-criteria corpora (``sxu``, ``zx``, ``wtb``, ``udc``) and the UD
treebanks that cws-bench downloads are each a handful of files, published
one by one at fixed addresses (raw files of a Git repository at a pinned
commit or release tag). :class:`PinnedFiles` holds what is common to them:

* where the files are, in order: ``data_dir`` (``--data-dir``), the
  corpus' environment variable, then the copy downloaded into the cache
  folder (``cws-bench corpora download NAME``); a given folder may be the
  corpus folder itself or a folder holding it (:attr:`PinnedFiles.subfolders`);
* what each file must hash to (:attr:`PinnedFiles.pinned`), checked when it
  is first read or downloaded;
* the download: each file to a temporary file beside its target, checked
  against its pinned hash, then renamed into place; files that travel with
  the data (a README whose licence says so) are fetched with it.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cws_bench.corpora.base import Availability, Corpus, environment_data_dir, unavailable
from cws_bench.corpora.download import (
    ChecksumMismatchError,
    cache_dir,
    download_file,
    file_sha256,
)
from cws_bench.text.io import PathLike

__all__ = ["CheckedFiles", "PinnedFiles"]


class CheckedFiles(Corpus):
    """A corpus read from a folder of the user's or from its copy in the cache folder, each
    file checked against its pinned SHA-256 when first read.

    Attributes:
        pinned: file name -> SHA-256 of the published file.
        data_variable: the environment variable naming the data folder.
        cache_name: the folder under the cache folder the download goes to.
        strict: a local file whose hash differs is an error (else it is read
            and reported as ``differs`` by :meth:`verification`).
        mismatch: the hint of that error, before "or pass verify=False ...".

    Args:
        data_dir: the corpus folder or a folder holding it.
        download: download the files into the cache when none are found.
        verify: check files against their pinned SHA-256.
        cache: the cache folder (default ``$CWS_BENCH_CACHE_DIR`` or the user's).
        progress: show a progress bar while downloading.
    """

    pinned: Mapping[str, str] = {}
    data_variable: str = ""
    cache_name: str = ""
    strict: bool = True
    mismatch = (
        "this is not the file {title} was published as (edited or re-encoded?); "
        "use the published file"
    )
    external_data = True

    def __init__(
        self,
        data_dir: PathLike | None = None,
        *,
        download: bool = False,
        verify: bool = True,
        cache: PathLike | None = None,
        progress: bool = False,
    ) -> None:
        if data_dir is None:
            data_dir = environment_data_dir(self.data_variable)
        self.data_dir = Path(data_dir).expanduser() if data_dir is not None else None
        self.download_missing = download
        self.verify = verify
        self.cache = cache_dir(cache) / self.cache_name
        self.progress = progress
        self._verified: dict[Path, str] = {}

    def _check(self, path: Path, name: str) -> None:
        if path in self._verified:
            return
        expected = self.pinned.get(name)
        if expected is None or not self.verify:
            self._verified[path] = "unverified"
            return
        actual = file_sha256(path)
        if actual == expected:
            self._verified[path] = "verified"
        elif self.strict:
            raise ChecksumMismatchError(
                str(path),
                expected,
                actual,
                self.mismatch.format(title=self.title) + ", or pass verify=False to read it anyway",
            )
        else:
            self._verified[path] = "differs"

    def verification(self) -> dict[str, str]:
        """File -> ``verified``, ``differs`` or ``unverified``, for the files read so far."""
        return {str(path): state for path, state in sorted(self._verified.items())}


class PinnedFiles(CheckedFiles):
    """A corpus of one file per split (plus companions), each with a pinned SHA-256.

    Subclasses (or instances) set, besides :class:`CheckedFiles`' attributes:

    Attributes:
        split_files: split -> file name.
        companions: files that travel with the data (downloaded with it, e.g. a README).
        base_url: the address (a folder, ending in ``/``) that ``url_suffix``
            and the file names are appended to when downloading; ``url`` or
            ``url_variable`` replace it (a mirror with the same layout).
        url_suffix: the corpus' folder under ``base_url`` (``sxu/``), or empty.
        remote_names: file name -> name at ``base_url`` when it differs.
        url_variable: the environment variable overriding ``base_url`` (a mirror).
        subfolders: where the corpus folder may sit under a given folder, glob patterns
            (``("mccws/sxu", "sxu")``, ``("*", "*/*")``); the given folder itself is
            tried first.

    Args:
        url: where to download from (default: ``url_variable``, then ``base_url``).
        data_dir, download, verify, cache, progress: see :class:`CheckedFiles`.
    """

    split_files: Mapping[str, str] = {}
    companions: tuple[str, ...] = ()
    base_url: str = ""
    url_suffix: str = ""
    remote_names: Mapping[str, str] = {}
    url_variable: str = ""
    subfolders: tuple[str, ...] = ()

    def __init__(
        self, data_dir: PathLike | None = None, *, url: str | None = None, **options: Any
    ) -> None:
        super().__init__(data_dir, **options)
        env_url = os.environ.get(self.url_variable) if self.url_variable else None
        root = (url or env_url or self.base_url).rstrip("/") + "/"
        self.url = root + self.url_suffix
        self.downloadable = bool(self.base_url) and all(
            name in self.pinned for name in self._all_files()
        )

    # -- where the files are ----------------------------------------------------

    def _all_files(self) -> list[str]:
        return [*self.split_files.values(), *self.companions]

    def _has_files(self, folder: Path) -> bool:
        return any((folder / name).is_file() for name in self.split_files.values())

    def _folder(self) -> Path | None:
        """The folder the files are read from, or None."""
        if self.data_dir is not None:
            below = (sorted(self.data_dir.glob(sub)) for sub in self.subfolders)
            for folder in (self.data_dir, *itertools.chain.from_iterable(below)):
                if folder.is_dir() and self._has_files(folder):
                    return folder
            return None
        if self._has_files(self.cache):
            return self.cache
        return None

    def _how_to_get(self) -> str:
        where = (
            f"pass its folder with {{0}} or {self.data_variable}"
            if self.data_variable
            else "pass its folder with {0}"
        )
        if self.downloadable:
            return (
                f"download it with `cws-bench corpora download {self.name}` "
                f"(from {self.url}), or {where}"
            )
        return f"get it from {self.source} and {where}"

    def availability(self) -> Availability:
        folder = self._folder()
        if folder is None:
            return self.missing(self._how_to_get())
        splits = tuple(s for s in self.splits if (folder / self.split_files[s]).is_file())
        how = None
        if len(splits) < len(self.splits):
            missing = ", ".join(s for s in self.splits if s not in splits)
            how = f"{missing} not in {folder}: {self._how_to_get()}"
        return Availability(bool(splits), str(folder), how, splits)

    def path(self, split: str) -> Path:
        """The file of a split, checked against its pinned SHA-256 (once)."""
        self.check_split(split)
        folder = self._folder()
        if folder is None:  # pragma: no cover - check_split saw it a moment ago
            raise unavailable(f"corpus {self.name} is not available", self._how_to_get())
        path = folder / self.split_files[split]
        self._check(path, self.split_files[split])
        return path

    # -- downloading ------------------------------------------------------------

    def download(self) -> Path:
        """Download every file into the cache folder (those not there yet); return the folder.

        Each file goes to a temporary file, is checked against its pinned
        SHA-256 and only then renamed into place, so an interrupted or wrong
        download leaves nothing behind.

        Raises:
            CorpusUnavailableError: the corpus cannot be downloaded by cws-bench.
            CwsBenchError: the server cannot be reached or the transfer breaks off.
            ChecksumMismatchError: a file is not the published one (nothing kept).
        """
        if not self.downloadable:
            return super().download()
        for name in self._all_files():
            target = self.cache / name
            if target.is_file() and file_sha256(target) == self.pinned[name]:
                continue
            remote = self.remote_names.get(name, name)
            download_file(
                self.url + remote, target, sha256=self.pinned[name], progress=self.progress
            )
            self._verified[target] = "verified"
        return self.cache

    def _ensure(self) -> None:
        if self._folder() is None and self.download_missing and self.data_dir is None:
            self.download()

    def check_split(self, split: str) -> str:
        self._ensure()
        return super().check_split(split)
