"""Signatures: every setting that can change a number, printed beside it.

Modelled on sacrebleu's ``Signature.format()``: ``key:value`` pairs joined
by ``|``, e.g. ``cws-bench:0.1.0|method:interval|norm:none|gold:3f2a…|dict:none``.
Two results with equal signatures were computed the same way on the same data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cws_bench import __version__
from cws_bench.text.checksums import short_hash

__all__ = ["Signature", "short_hash"]


@dataclass(frozen=True)
class Signature:
    """What produced a score: the counting method, the checksums of the gold and of the
    OOV dictionary (None: none), the normalisation, beta, the resampling seed when a
    number depends on one, and further settings as ``(key, value)`` pairs in order."""

    method: str = "interval"
    gold: str | None = None
    dictionary: str | None = None
    normalization: str = "none"
    beta: float = 1.0
    seed: int | None = None
    extra: tuple[tuple[str, str], ...] = field(default=())
    version: str = __version__

    def items(self) -> list[tuple[str, str]]:
        """The signature's ``(key, value)`` pairs in print order."""
        pairs = [
            ("cws-bench", self.version),
            ("method", self.method),
            ("norm", self.normalization),
            ("gold", self.gold or "none"),
            ("dict", self.dictionary or "none"),
        ]
        if self.beta != 1.0:
            pairs.append(("beta", f"{self.beta:g}"))
        if self.seed is not None:
            pairs.append(("seed", str(self.seed)))
        pairs.extend(self.extra)
        return pairs

    def format(self) -> str:
        """The signature as one line.

        >>> Signature(gold="ab12", dictionary=None).format()
        'cws-bench:0.1.0|method:interval|norm:none|gold:ab12|dict:none'
        """
        return "|".join(f"{key}:{value}" for key, value in self.items())

    def to_dict(self) -> dict[str, str]:
        """The signature as a JSON-safe dict in print order."""
        return dict(self.items())

    def __str__(self) -> str:
        return self.format()
