"""A check as JUnit XML, the test report format every CI system shows.

One ``<testsuite>`` per corpus, one ``<testcase>`` per bound (``f1``,
``oov_recall``, ``speed``, ...): a broken bound is a ``<failure>`` whose
message gives the old, new and allowed values, a bound that cannot apply
(OOV recall without a dictionary) is ``<skipped>``. Changes of the
experiment since the baseline are the suite's ``<system-out>`` and
properties; with ``fail_on_change`` they are also a failing test case,
``experiment unchanged``. Written with :mod:`xml.etree.ElementTree`.

>>> from cws_bench.regression.check import BoundCheck, CheckResult
>>> from cws_bench.regression.baseline import Bounds
>>> check = BoundCheck("sample", "f1", "failed", 0.81, 0.80, 0.81, 0.0, None, "F1 dropped")
>>> xml = render_junit(CheckResult("jieba", (check,), (), {}, Bounds()))
>>> '<testcase classname="cws-bench.jieba.sample" name="f1">' in xml
True
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from cws_bench.regression.check import CheckResult

__all__ = ["render_junit"]


def _counts(element: ET.Element, cases: list[ET.Element]) -> None:
    """An element's counts of the test cases under it, by what each holds."""
    element.set("tests", str(len(cases)))
    element.set("failures", str(sum(case.find("failure") is not None for case in cases)))
    element.set("errors", "0")
    element.set("skipped", str(sum(case.find("skipped") is not None for case in cases)))


def render_junit(result: CheckResult, *, baseline: str | None = None) -> str:
    """The check as a JUnit XML document (UTF-8 text with its XML declaration); ``baseline``:
    the baseline file's name, recorded as a property."""
    root = ET.Element("testsuites", name=f"cws-bench check: {result.segmenter}")
    corpora = list(dict.fromkeys(check.corpus for check in result.checks))
    for corpus in corpora:
        checks = [check for check in result.checks if check.corpus == corpus]
        suite = ET.SubElement(root, "testsuite", name=f"{result.segmenter} on {corpus}")
        properties = ET.SubElement(suite, "properties")
        if baseline is not None:
            ET.SubElement(properties, "property", name="baseline", value=baseline)
        ET.SubElement(properties, "property", name="segmenter", value=result.segmenter)
        changes = [c for c in result.changes if c.corpus in (None, corpus)]
        for change in changes:
            ET.SubElement(
                properties, "property", name=f"changed: {change.what}", value=change.message
            )
        classname = f"cws-bench.{result.segmenter}.{corpus}"
        for check in checks:
            case = ET.SubElement(suite, "testcase", classname=classname, name=check.metric)
            if check.status == "failed":
                failure = ET.SubElement(case, "failure", message=check.message, type="regression")
                failure.text = check.message
            elif check.status == "skipped":
                ET.SubElement(case, "skipped", message=check.message)
            else:
                ET.SubElement(case, "system-out").text = check.message
        if result.fail_on_change:
            case = ET.SubElement(
                suite, "testcase", classname=classname, name="experiment unchanged"
            )
            relevant = [c for c in changes if c.what != "machine"]
            if relevant:
                message = "; ".join(change.message for change in relevant)
                failure = ET.SubElement(case, "failure", message=message, type="changed experiment")
                failure.text = "\n".join(change.message for change in relevant)
        if changes:
            ET.SubElement(suite, "system-out").text = "\n".join(
                ["changed since the baseline:"] + [f"- {change.message}" for change in changes]
            )
        _counts(suite, suite.findall("testcase"))
    _counts(root, root.findall("testsuite/testcase"))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
