"""The result of one kind's own check (`sealscope check`, KINDS.md §12): the typed value
every frontend reads — the CLI's `check` line and JSON, the viewer's banner, a report,
the CI formats, a fleet entry.

The word and exit code follow the reference verifier's own `ok` (KINDS.md §0.1) unless
the kind's reference already answers with a verdict word (`word`: evidence packs,
audit bundles), which is then taken unchanged. `bound` names what a VERIFIED held
within ("content not checked", "artefact not held"); "" when it held in full.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sealscope.core import verdict as _verdict

__all__ = ["KindCheck", "CheckContext"]


@dataclass(frozen=True)
class KindCheck(_verdict.Judged):
    """One path's kind and its check; `detail` holds the reference verifier's result
    fields under their own names (plus check's additions, KINDS.md §12)."""

    path: str
    kind: str | None
    ok: bool | None
    detail: dict[str, Any] = field(default_factory=dict)
    word: str | None = None
    bound: str = ""
    reason: str = ""
    #: the bytes this check judged, as a verification summary names them: (name,
    #: SHA-256) of each file read whole (a file kind: its path; a unit folder: each
    #: member as `path/member`; a zip: its path); () when what it read could not be
    #: bound to one set of bytes (changed or replaced while read); None when it said
    #: nothing (not read)
    subjects: tuple[tuple[str, str], ...] | None = None
    # the path's long-tail profile (KINDS-3.md §15), None when it has none
    profile: str | None = None

    def outcome(self) -> _verdict.Outcome:
        return _verdict.kind_check(self.ok, self.word)

    @property
    def rows_checked(self) -> list[dict[str, Any]]:
        """A ledger's or call record's row checks (KINDS.md §11.2), in line order: each
        `{"line", "check", "ok", "verdict", ...}` with its check's own fields; [] for
        every other kind."""
        rows = self.detail.get("rows_checked")
        return list(rows) if isinstance(rows, list) else []

    def to_dict(self) -> dict[str, Any]:
        """The JSON object `check --json` prints for this path."""
        out = self.outcome()
        return {
            "path": self.path,
            "kind": self.kind,
            "verdict": out.verdict,
            "exit_code": out.exit_code,
            "ok": self.ok,
            "bound": self.bound or None,
            "profile": self.profile,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class CheckContext:
    """What `sealscope check` was given besides the paths: `artefacts` the
    `--artefacts DIR` folder of held things (None: nothing held), `verdict_files` the
    stored continuity verdicts named as PATHs (they join `continuity_verify` rows,
    KINDS.md §5.3); `held_digests` the run's digests of held files, each taken once
    (`artefact.held_hex`), shared by every check of the run; `bind_reads` whether each
    check names the bytes it judged (`KindCheck.subjects`, `bound_reads`: hashing what
    it reads), which a run that writes no verification summary may turn off."""

    artefacts: str | None = None
    verdict_files: tuple[str, ...] = ()
    held_digests: dict[tuple[int, int, int, int, str], str | None] = field(
        default_factory=dict, compare=False, repr=False
    )
    bind_reads: bool = True
