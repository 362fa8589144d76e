"""JUnit XML from `Suite`s: one `<testsuite>` per file, one `<testcase>` per check; every
text sanitized and made XML-safe.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence

from sealscope.ci_suites import BOUNDED, FAILED, Case, Suite
from sealscope.core.sanitize import clean

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """Sanitized text that XML 1.0 can carry (ElementTree escapes `<`, `&`, quotes)."""
    return _NOT_XML.sub("\ufffd", clean(text))


def junit_classname(path: str) -> str:
    """A file's JUnit `classname`: its path with every `.` made `_` (Jenkins and most
    JUnit readers split a classname at its dots into package and class, so
    `fleet/agent-005.jsonl` would show as class `jsonl` of package `fleet/agent-005`).
    The suite's `name` keeps the path as it is."""
    return xml_text(path).replace(".", "_")


def junit_xml(suites: Sequence[Suite]) -> bytes:
    """`<testsuites>` with one `<testsuite>` per file and one `<testcase>` per check,
    indented; a failed check carries `<failure message=... type=...>`, a file that
    could not be read `<error>` (it is no pass and no bound: CI shows it red), a bounded
    check `<skipped>`, a passed one its text (the scope it held in) as `<system-out>`."""

    def count(cases: Iterable[Case]) -> dict[str, str]:
        cases = list(cases)
        return {
            "tests": str(len(cases)),
            "failures": str(sum(c.outcome == FAILED for c in cases)),
            "errors": str(sum(c.outcome == BOUNDED and c.unreadable for c in cases)),
            "skipped": str(sum(c.outcome == BOUNDED and not c.unreadable for c in cases)),
        }

    root = ET.Element(
        "testsuites", {"name": "sealscope", **count(c for s in suites for c in s.cases)}
    )
    for s in suites:
        el = ET.SubElement(root, "testsuite", {"name": xml_text(s.path), **count(s.cases)})
        for c in s.cases:
            tc = ET.SubElement(
                el, "testcase", name=xml_text(c.name), classname=junit_classname(s.path)
            )
            if c.outcome == FAILED:
                f = ET.SubElement(
                    tc, "failure", message=xml_text(c.text.split(";")[0]), type="sealscope.verdict"
                )
                f.text = xml_text(c.text)
            elif c.outcome == BOUNDED and c.unreadable:
                e = ET.SubElement(
                    tc, "error", message=xml_text(c.text), type="sealscope.unreadable"
                )
                e.text = xml_text(c.text)
            elif c.outcome == BOUNDED:
                ET.SubElement(tc, "skipped", message=xml_text(c.text))
            else:
                ET.SubElement(tc, "system-out").text = xml_text(c.text)
    ET.indent(root, space="  ")
    # a character reference for the `[` of `#[`: no legacy `##[` command in the file
    return (
        ET.tostring(root, encoding="utf-8", xml_declaration=True).replace(b"#[", b"#&#91;") + b"\n"
    )
