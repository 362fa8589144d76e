"""The CI flags a verb takes (`--format`, `--junit`, `--vsa`, `--verifier-id`) and
`github(args)`; light to import, so a verb registers them without loading the CI
formats (`ci_formats`), which its run imports only when one of them is asked for."""

from __future__ import annotations

from typing import Any

__all__ = ["add_arguments", "github", "verifier_uri", "wanted"]


def verifier_uri(text: str) -> str:
    """`--verifier-id`'s value, checked by `ci_vsa.verifier_uri` (loaded when given)."""
    from sealscope.ci_vsa import verifier_uri as check

    return check(text)


def add_arguments(p: Any, *, format_flag: bool = True) -> None:
    """`--format github`, `--junit FILE`, `--vsa FILE` on a verb's parser (without
    `--format` for a verb that has its own and adds `github` to it)."""
    if format_flag:
        p.add_argument(
            "--format",
            dest="ci_format",
            choices=("text", "json", "github"),
            default=None,
            help="stdout format: text (default), json (as --json), "
            "or github (workflow-command annotations; with $GITHUB_STEP_SUMMARY "
            "set, the Markdown report is appended there)",
        )
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML to FILE")
    p.add_argument(
        "--vsa",
        metavar="FILE",
        help="also write an in-toto SLSA verification summary (unsigned) to FILE",
    )
    p.add_argument(
        "--verifier-id",
        metavar="URI",
        type=verifier_uri,
        help="the VSA's verifier id (default: the project's repository URL, "
        "else pkg:generic/sealscope)",
    )


def github(args: Any) -> bool:
    return getattr(args, "ci_format", None) == "github"


def wanted(args: Any) -> bool:
    """Whether a CI output is asked for (annotations, a JUnit or a VSA file)."""
    return bool(github(args) or getattr(args, "junit", None) or getattr(args, "vsa", None))
