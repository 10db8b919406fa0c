"""Bake-off configurations bundled with cws-bench: one TOML file each, named by its stem.

:data:`BUNDLED_CONFIGS` is their registry, read from this folder's ``*.toml``
files (``default`` first), so a new file here is a new bundled configuration.
"""

from __future__ import annotations

from importlib import resources

__all__ = ["BUNDLED_CONFIGS", "bundled_text"]


def _names() -> tuple[str, ...]:
    stems = sorted(
        entry.name.removesuffix(".toml")
        for entry in resources.files(__name__).iterdir()
        if entry.name.endswith(".toml")
    )
    return tuple(sorted(stems, key=lambda stem: stem != "default"))


BUNDLED_CONFIGS: tuple[str, ...] = _names()
"""The bundled configurations' names (``default`` first, then alphabetical)."""


def bundled_text(name: str) -> str:
    """The TOML text of a bundled configuration."""
    return resources.files(__name__).joinpath(f"{name}.toml").read_text("utf-8")
