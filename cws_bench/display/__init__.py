"""How cws-bench prints: one unit policy for scores (:mod:`~cws_bench.display.units`),
plain tables and the one Markdown escaping (:mod:`~cws_bench.display.tables`), and one
way for a result to render itself in a format (:mod:`~cws_bench.display.formats`).

Every layer prints through it, the metrics among them, so it sits below them all and
imports nothing of cws-bench but the unknown-format error (:mod:`cws_bench.errors`).
"""
