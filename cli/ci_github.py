"""GitHub workflow commands and the step summary from `Suite`s: every text taken from
evidence passes `sanitize.clean` and the command's own escaping, and output that is not
an annotation can be wrapped in `::stop-commands::TOKEN`, so no row can start or end a
workflow command.
"""

from __future__ import annotations

from collections.abc import Iterable

from sealscope.ci_suites import ANNOTATION_LIMIT, SUMMARY_LIMIT, Suite
from sealscope.core.sanitize import clean


def _escape_data(text: str) -> str:
    return clean(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _escape_path(path: str) -> str:
    """A `file=` property: the real path (so the annotation lands on the file that
    exists), escaped only as the property rules say; not sanitized for display."""
    return (
        path.replace("%", "%25")
        .replace("\r", "%0D")
        .replace("\n", "%0A")
        .replace(":", "%3A")
        .replace(",", "%2C")
    )


def github_commands(suites: Iterable[Suite], limit: int = ANNOTATION_LIMIT) -> str:
    """`::error file=P,line=N,title=T::message` per error mark, `::warning` per warning;
    one line each, escaped as the workflow-command rules require. At most `limit`
    (errors first), then one warning saying how many were left out."""
    marks = [(s, m) for s in suites for m in s.marks]
    if len(marks) > limit:
        marks.sort(key=lambda sm: sm[1].level != "error")  # stable: file and line order
    out = []
    for s, m in marks[:limit]:
        props = [f"file={_escape_path(s.path)}"]
        if m.line is not None:
            props.append(f"line={int(m.line)}")
        props.append(f"title={_escape_property(m.title)}")
        out.append(f"::{m.level} {','.join(props)}::{_escape_data(m.message)}")
    if len(marks) > limit:
        left = marks[limit:]
        errors = sum(m.level == "error" for _s, m in left)
        out.append(
            f"::warning title=sealscope annotations left out::{len(left)} more "
            f"annotation(s) ({errors} error(s)) not written; `sealscope export FILE "
            "--format json` lists every result of a file"
        )
    return "".join(line + "\n" for line in out)


def stop_token() -> str:
    """A fresh random token for `::stop-commands::` (one per run: evidence cannot
    know it, so cannot end the pause)."""
    import secrets

    return "sealscope-" + secrets.token_hex(16)


def guarded(text: str, token: str) -> str:
    """`text` (not annotations) between `::stop-commands::TOKEN` and `::TOKEN::`: the
    runner runs no workflow command inside, whatever the text holds."""
    if not text:
        return text
    body = text if text.endswith("\n") else text + "\n"
    return f"::stop-commands::{token}\n{body}::{token}::\n"


def step_summary(markdown: str, limit: int = SUMMARY_LIMIT) -> str:
    """The Markdown report for `$GITHUB_STEP_SUMMARY`, cut to `limit` bytes at a line
    boundary with a closing line saying how much was left out."""
    data = markdown.encode("utf-8")
    if len(data) <= limit:
        return markdown
    if limit < 300:  # not even the closing line fits
        return ""
    room = limit - 300
    cut = data.rfind(b"\n", 0, room) + 1 or room
    kept = data[:cut].decode("utf-8", "ignore")
    left = len(data) - len(kept.encode("utf-8"))
    return kept + (
        f"\n\n**Report truncated:** {left:,} more bytes "
        f"({markdown.count(chr(10)) - kept.count(chr(10)):,} lines) left out "
        "to fit GitHub's 1 MiB step-summary limit; `sealscope export FILE "
        "--format json` lists every result of a file.\n"
    )
