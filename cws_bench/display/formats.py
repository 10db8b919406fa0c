"""One way for a result to render itself: a table of formats, each a ``to_<format>`` method.

A class lists its formats in ``FORMATS`` and renders each in ``to_<format>``;
:meth:`Renderable.render` picks the method, passes it the options it takes
(``scale``, ``digits``, the names of the inputs ...) and raises the one
:class:`~cws_bench.errors.UnknownFormatError`, whose hint lists the formats,
for any other name. The command line's ``--format`` choices are the same
``FORMATS``, so a new format is one method and one name in the tuple (as
ranx's ``Report.to_*``). A function that renders something without a class
(a list of corpora, of segmenters) gives :func:`render_in` its own table.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from cws_bench.errors import UnknownFormatError

__all__ = ["Renderable", "render_in"]


def render_in(
    fmt: str,
    renderers: Mapping[str, Callable[..., str]],
    /,
    *args: Any,
    what: str = "format",
    **options: Any,
) -> str:
    """``renderers[fmt]`` called with ``args`` and those of ``options`` it takes.

    >>> table = {"text": lambda *, digits=2: f"{1 / 3:.{digits}f}", "json": lambda: "{}"}
    >>> render_in("text", table, digits=3), render_in("json", table, digits=3)
    ('0.333', '{}')
    >>> render_in("xml", table)
    Traceback (most recent call last):
    ...
    cws_bench.errors.UnknownFormatError: unknown format 'xml'
      hint: use one of: text, json

    Raises:
        UnknownFormatError: ``fmt`` is not a key of ``renderers``.
    """
    renderer = renderers.get(fmt)
    if renderer is None:
        raise UnknownFormatError(fmt, renderers, what=what)
    parameters = inspect.signature(renderer).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return renderer(*args, **options)
    taken = {name: value for name, value in options.items() if name in parameters}
    return renderer(*args, **taken)


class Renderable:
    """A result that renders itself in each of its ``FORMATS`` by its ``to_<format>`` method."""

    __slots__ = ()  # a slotted dataclass stays slotted

    FORMATS: ClassVar[tuple[str, ...]] = ()
    """The format names, in the order ``--format`` lists them."""

    def render(self, fmt: str, **options: Any) -> str:
        """The result in ``fmt`` (one of :attr:`FORMATS`), without a final newline; each
        option goes to the formats whose method takes it.

        Raises:
            UnknownFormatError: ``fmt`` is not one of :attr:`FORMATS`.
        """
        renderers = {name: getattr(self, f"to_{name}") for name in self.FORMATS}
        return render_in(fmt, renderers, **options)

    def to_dict(self) -> Mapping[str, Any]:
        """The result as JSON-safe data, in a stable key order (each result writes its own)."""
        raise NotImplementedError

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON, characters beyond ASCII as they are."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)
