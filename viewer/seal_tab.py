"""SealTab: one continuity snapshot file, read-only.

Top: the seal's state — VALID (its content reproduces its digests), INVALID with the
exact reason `validate()` gave, or COULD NOT LOOK (the words of `core.verdict`, drawn by
the banner every tab shares, `viewer.banner`) — its label, id scheme, probe count
and snapshot digest, and where it was sealed in an open ledger. Left: the manifest as
a tree (each declared item with its probe id). Right: the verdict of a restatement
once one is scored (`VerdictView`), then the probes with their registered scores.

Keys: r score a restatement, s strict/loose, t tiers, a added since the seal (a newer
manifest or seal), d diff against another seal (one of those open, or a file:
`SealDiffScreen`), j jump to the ledger row that sealed it, x export the audit report
(`ExportScreen`).

Ledger link: `scan_ledger(path)` looks for `continuity_snapshot` rows whose
`manifest_digest` and `probe_set_digest` equal this seal's and links each one; `j`
then posts `messages.JumpToLedgerRow(path, line)` for the app to show that line.
For the other direction, `find_seal_tab(tabs, row)` names the open seal of a
`continuity_snapshot` row, and `SealTab.seal_key` is the pair of digests to match.

Everything is `TabPane` content: `SealTab(path, id="seal-1")`, added with
`TabbedContent.add_pane`. Every string from the snapshot, a restatement or a tiers
file goes through `sanitize.clean` and is shown as `rich.text.Text`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from rich.table import Table
from rich.text import Text
from sealscope.core import export
from sealscope.core import verdict as _verdict
from sealscope.core.continuity import (
    added_since_seal,
    derive_probes,
    diff_seals,
    verify_continuation,
)
from sealscope.viewer.banner import Banner, badge
from sealscope.viewer.commands import PaletteBinding
from sealscope.viewer.evidence_tab import CLEAR_CHECKS, EvidenceTab, tab_label, tab_title
from sealscope.viewer.export_action import ExportScreen
from sealscope.viewer.messages import JumpToLedgerRow, RestatementScored
from sealscope.viewer.prompt import ChoiceScreen, PathSuggester, PromptScreen, pasted_path
from sealscope.viewer.seal_diff import SealDiffScreen, snap_of
from sealscope.viewer.style import TONE_STYLE, json_text, shown, tier_style
from sealscope.viewer.verdict_view import VerdictView
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static, Tree

__all__ = ["SealTab", "find_seal_tab", "manifest_tree_labels"]

VALUE_WIDTH = 60
TREE_TEXT = 36  # characters of a manifest leaf label (the tree is 46 columns wide)


def _short(text: str, width: int = VALUE_WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def manifest_tree_labels(manifest: Any, id_scheme: Any = "index") -> list[tuple[str, list]]:
    """[(key, [(probe id or None, value text), ...])] in derivation order (sorted keys,
    then list order); probe ids only when the manifest derives probes cleanly."""
    if not isinstance(manifest, dict):
        return []
    try:
        ids = [p["id"] for p in derive_probes(manifest, id_scheme=id_scheme)]
    except Exception:  # noqa: BLE001 - an odd manifest still shows, without ids
        ids = None
    out: list[tuple[str, list]] = []
    i = 0
    try:
        keys = sorted(manifest.keys())
    except TypeError:
        keys = list(manifest.keys())
    for key in keys:
        value = manifest[key]
        items = []
        elems = value if isinstance(value, list) else [value]
        for elem in elems:
            if isinstance(value, list) and isinstance(elem, dict) and set(elem) == {"id", "value"}:
                shown = json_text(elem["value"])
            else:
                shown = json_text(elem)
            pid = ids[i] if ids is not None and i < len(ids) else None
            items.append((pid, shown))
            i += 1
        out.append((str(key), items))
    return out


def find_seal_tab(tabs: Iterable[Any], row: Any) -> SealTab | None:
    """The open SealTab sealed by this `continuity_snapshot` row (both digests
    equal), or None."""
    if not isinstance(row, dict) or row.get("kind") != "continuity_snapshot":
        return None
    key = (row.get("manifest_digest"), row.get("probe_set_digest"))
    for tab in tabs:
        if isinstance(tab, SealTab) and tab.seal_key == key:
            return tab
    return None


class SealTab(EvidenceTab):
    """The tab of one snapshot file."""

    DEFAULT_CSS = """
    SealTab {
        layout: vertical;
        padding: 0;
    }
    SealTab #seal-banner { max-height: 6; }
    SealTab #seal-body { height: 1fr; }
    SealTab #seal-manifest {
        width: 46;
        height: 1fr;
        border-right: vkey $primary 50%;
        scrollbar-size-vertical: 1;
    }
    SealTab #seal-right {
        width: 1fr;
        height: 1fr;
        scrollbar-size-vertical: 1;
    }
    SealTab #seal-probes {
        height: auto;
        padding: 0 1;
    }
    SealTab #seal-manifest { overflow-x: hidden; }
    """

    kind_name = "seal"

    # what the tab shows; each change repaints it (`_refresh_shown`)
    verdict: reactive[Any] = reactive(None, always_update=True, init=False)
    added: reactive[dict[str, Any] | None] = reactive(None, always_update=True, init=False)
    ledger_links: reactive[tuple[export.SnapshotRowRef, ...]] = reactive((), init=False)
    tiers_path: reactive[str | None] = reactive(None, init=False)
    tiers_error: reactive[str | None] = reactive(None, init=False)

    BINDINGS = [
        PaletteBinding(
            "r",
            "restate",
            "Score restatement",
            title="Score a restatement",
            help="Score a restatement file against this seal",
        ),
        PaletteBinding(
            "s",
            "toggle_strict",
            "Strict/loose",
            title="Strict / loose scoring",
            help="Re-score in the other mode (loose never judges faithful)",
        ),
        PaletteBinding(
            "t",
            "tiers",
            "Tiers",
            title="Load severity tiers",
            help="Colour divergences and diffs by a tiers file",
        ),
        PaletteBinding(
            "a",
            "added",
            "Added since seal",
            title="Added since this seal",
            help="Load a newer manifest or seal: what it adds",
        ),
        PaletteBinding(
            "d",
            "diff",
            "Diff seals",
            title="Diff against another seal",
            help="Two seals side by side, aligned by probe id",
        ),
        PaletteBinding(
            "j",
            "jump_ledger",
            "Ledger row",
            title="Jump to the sealing ledger row",
            help="Show the continuity_snapshot row of this seal",
        ),
        PaletteBinding(
            "x",
            "export",
            "Export",
            title="Export the audit report",
            help="Write this seal's report as Markdown and JSON",
        ),
        CLEAR_CHECKS,
    ]

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        id: str | None = None,
        tiers: str | os.PathLike | None = None,
    ) -> None:
        self.path = os.fspath(path)
        self.seal = export.load_seal(self.path)
        self.tab_name = tab_label(self.path)
        super().__init__(tab_title(self.tab_name, self.seal.outcome().verdict), id=id)
        self.restated_path: str | None = None
        self.restated: dict[str, Any] | None = None
        self.strict = True
        self.tiers: dict[str, Any] | None = None
        self.added_source: str | None = None
        self.banner_view: Text = Text("")
        self.probes_view: Any = Text("")
        if tiers is not None:
            self._set_tiers(os.fspath(tiers))

    def _refresh_shown(self) -> None:
        if self.is_mounted:
            self.refresh_view()

    watch_verdict = watch_added = watch_ledger_links = _refresh_shown
    watch_tiers_path = watch_tiers_error = _refresh_shown

    @property
    def snap(self) -> Any:
        return self.seal.snap

    @property
    def seal_key(self) -> tuple[Any, Any] | None:
        """(manifest_digest, probe_set_digest) of a valid seal, else None."""
        if self.seal.status != "ok":
            return None
        return (self.snap.manifest_digest, self.snap.probe_set_digest)

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        self.banner_view = self._banner()
        yield Banner(self.banner_view, outcome=self._outcome(), id="seal-banner")
        with Horizontal(id="seal-body"):
            yield Tree(Text("manifest", style="bold"), id="seal-manifest")
            with VerticalScroll(id="seal-right"):
                yield VerdictView(id="seal-verdict")
                yield Static(self._probes(), id="seal-probes")

    def on_mount(self) -> None:
        self.judge()
        self.query_one(VerdictView).display = False
        tree = self.query_one("#seal-manifest", Tree)
        self._fill_tree(tree)
        tree.root.expand_all()
        tree.cursor_line = 0

    def main_widget(self) -> Tree:
        return self.query_one("#seal-manifest", Tree)

    def _outcome(self) -> _verdict.Outcome:
        """The banner's verdict: the tab's (the seal with its checks), else the seal's."""
        return self.tab_verdict or self.seal.outcome()

    # ------------------------------------------------------------------ the tab's verdict
    def own_outcome(self) -> _verdict.Outcome:
        """The seal file alone: VALID, INVALID or COULD NOT LOOK (`snapshot`'s)."""
        return self.seal.outcome()

    def checks_changed(self) -> None:
        if self.is_mounted:
            self.refresh_view()

    def clear_check_state(self) -> None:
        self.restated_path = self.restated = None
        self.added_source = None
        self.set_reactive(SealTab.verdict, None)
        self.set_reactive(SealTab.added, None)
        if self.is_mounted:
            self.query_one(VerdictView).display = False

    def _banner(self) -> Text:
        s = self.seal
        doc = s.summary()
        t = Text()
        t.append_text(badge(s.outcome().verdict))
        if s.status == "ok":
            t.append("  the content reproduces its digests", "dim")
        t.append("  ")
        t.append(shown(self.path))
        t.append("\n")
        if self.session and self.tab_verdict is not None:
            t.append_text(badge(self.tab_verdict.verdict))
            t.append(f"  with {len(self.session)} check(s): ", "dim")
            t.append("; ".join(f"{shown(r.title)} {r.verdict}" for r in self.session))
            t.append("\n")
        if doc["label"] is not None or doc["id_scheme"] is not None:
            t.append("label ", "dim")
            t.append(shown(doc["label"]), "bold")
            t.append("   id scheme ", "dim")
            t.append(shown(doc["id_scheme"]))
            t.append("   probes ", "dim")
            t.append(shown(doc["probes"]))
            if s.status == "ok":
                t.append("   sealed ", "dim")
                t.append(shown(self.snap.created_at))
            t.append("\n")
        if s.status == "ok":
            t.append("digest ", "dim")
            t.append(shown(doc["digest"]))
        else:
            t.append("reason ", "dim")
            t.append(shown(s.error), "bold")
        if self.ledger_links:
            ref = self.ledger_links[0]
            t.append("\nsealed in ", "dim")
            t.append(shown(ref.path))
            t.append(f" line {ref.line}", "bold")
            more = len(self.ledger_links) - 1
            if more:
                t.append(f" (+{more} more)", "dim")
            t.append("   j to jump", "dim")
        if self.tiers_path:
            t.append("\ntiers ", "dim")
            t.append(shown(self.tiers_path))
        if self.tiers_error:
            t.append("\ntiers not loaded: ", "dim")
            t.append(shown(self.tiers_error), "red")
        return t

    def _fill_tree(self, tree: Tree) -> None:
        s = self.seal
        if s.status == "ok":
            manifest, scheme = self.snap.manifest, self.snap.id_scheme
        elif isinstance(s.raw, dict):
            manifest, scheme = s.raw.get("manifest"), s.raw.get("id_scheme", "index")
        else:
            tree.root.add_leaf(Text("(no manifest to show)", style="dim"))
            return
        if not isinstance(manifest, dict):
            tree.root.add_leaf(Text(_short(shown(json_text(manifest))), style="red"))
            return
        for key, items in manifest_tree_labels(manifest, scheme):
            node = tree.root.add(
                Text.assemble((shown(key), "bold"), (f"  {len(items)}", "dim")), expand=True
            )
            for pid, value_text in items:
                label = Text()
                room = TREE_TEXT
                if pid is not None:
                    pid_text = _short(shown(pid), 26)
                    label.append(pid_text, "cyan")
                    label.append("  ")
                    room -= len(pid_text) + 2
                label.append(_short(shown(value_text), max(8, room)))
                node.add_leaf(label)

    def _probes(self) -> Any:
        s = self.seal
        probes = (
            self.snap.probes
            if s.status == "ok"
            else (s.raw.get("probes") if isinstance(s.raw, dict) else None)
        )
        if not isinstance(probes, list) or not probes:
            return Text("no probes", style="dim")
        scores = {}
        reg = (
            self.snap.registration
            if s.status == "ok"
            else (s.raw.get("registration") if isinstance(s.raw, dict) else None)
        )
        if isinstance(reg, dict) and isinstance(reg.get("items"), list):
            for it in reg["items"]:
                if isinstance(it, dict):
                    scores[str(it.get("id"))] = it.get("score")
        diverged = {}
        if self.verdict is not None:
            for d in self.verdict.divergences:
                diverged[str(d.get("id"))] = d.get("severity", "untiered")
        t = Table(
            title=Text(f"probes ({len(probes)})", style="bold"),
            title_justify="left",
            box=None,
            expand=True,
            pad_edge=False,
            padding=(0, 1),
        )
        longest = max((len(shown(p.get("id"))) for p in probes if isinstance(p, dict)), default=2)
        t.add_column("id", no_wrap=True, min_width=min(longest, 30), max_width=30)
        t.add_column("declared answer", ratio=1)
        t.add_column("registered", justify="right", no_wrap=True)
        if self.verdict is not None:
            t.add_column("now", no_wrap=True)
        for p in probes:
            if not isinstance(p, dict):
                t.add_row(Text(_short(shown(json_text(p))), style="red"), Text(""), Text(""))
                continue
            scoring = p["scoring"] if isinstance(p.get("scoring"), dict) else {}
            pid = str(p.get("id"))
            row = [
                Text(shown(pid), style="cyan"),
                Text(shown(json_text(scoring.get("answer")))),
                Text(shown(scores.get(pid, "—"))),
            ]
            if self.verdict is not None:
                if pid in diverged:
                    sev = diverged[pid]
                    row.append(Text(f"✗ {shown(sev)}", style=tier_style(sev)))
                elif self.verdict.valid and not (self.verdict.policy or {}).get("strict", True):
                    row.append(Text("contained", style="yellow"))  # loose: never a pass
                elif self.verdict.valid:
                    row.append(Text("✓ exact", style="green"))
                else:
                    row.append(Text("—", style="dim"))
            t.add_row(*row)
        return t

    def refresh_view(self) -> None:
        """Repaint the banner, probes and verdict from the current state."""
        self.banner_view = self._banner()
        self.query_one(Banner).show(self._outcome(), self.banner_view)
        self.probes_view = self._probes()
        self.query_one("#seal-probes", Static).update(self.probes_view)
        view = self.query_one(VerdictView)
        if self.verdict is not None:
            view.show(
                self.verdict,
                restated_path=self.restated_path,
                tiers_path=self.tiers_path,
                added=self.added,
                added_source=self.added_source,
            )
        elif self.added is not None:
            view.show_added(self.added, self.added_source or "")

    # ------------------------------------------------------------------ verdicts
    def _need_seal(self) -> bool:
        if self.seal.status != "ok":
            self.notify(
                "this seal is not valid: " + shown(self.seal.error),
                markup=False,
                severity="warning",
            )
            return False
        return True

    def score(self, restated_path: str | os.PathLike, *, strict: bool | None = None) -> Any:
        """Score a restatement file against this seal (strict unless told); the verdict,
        or None with the error shown."""
        if not self._need_seal():
            return None
        path = os.fspath(restated_path)
        if strict is not None:
            self.strict = strict
        try:
            restated = export.load_restated(path)
            v = verify_continuation(
                self.snap, restated=restated, strict=self.strict, tiers=self.tiers
            )
        except (ValueError, TypeError) as e:
            self.query_one(VerdictView).show_error(str(e))
            self.notify("could not score: " + shown(e), markup=False, severity="error")
            return None
        self.restated_path, self.restated, self.verdict = path, restated, v
        record = export.verdict_record(v, path, tiers_path=self.tiers_path)
        self.add_session(record, key=("restatement",))
        self.post_message(RestatementScored(record))
        return v

    def _rescore(self) -> None:
        if self.restated_path is not None:
            self.score(self.restated_path)

    def _set_tiers(self, path: str) -> bool:
        try:
            self.tiers = export.load_tiers(path)
        except ValueError as e:
            self.tiers_error = str(e)
            return False
        self.tiers_path, self.tiers_error = path, None
        return True

    def load_tiers(self, path: str | os.PathLike) -> bool:
        """Use a tiers file for severities (re-scores a loaded restatement)."""
        ok = self._set_tiers(os.fspath(path))
        if not ok:
            self.notify(
                "tiers not loaded: " + shown(self.tiers_error), markup=False, severity="error"
            )
        if self.is_mounted:
            self._rescore()
        return ok

    def load_newer_manifest(self, path: str | os.PathLike) -> dict | None:
        """`added_since_seal` against a newer manifest (or a newer seal's manifest)."""
        if not self._need_seal():
            return None
        p = os.fspath(path)
        try:
            added = added_since_seal(self.snap, export.load_manifest(p))
        except (ValueError, TypeError) as e:
            self.notify("manifest not loaded: " + shown(e), markup=False, severity="error")
            return None
        self.added_source, self.added = p, added
        self.add_session(export.added_record(added, p), key=("added", p))
        return added

    # ------------------------------------------------------------------ diff
    def open_diff(self, other: str | os.PathLike) -> Any:
        """Push a SealDiffScreen of this seal and `other`, the older one first (by
        `created_at`); the diff is recorded in the session. The screen, or None."""
        if not self._need_seal():
            return None
        got = export.load_seal(os.fspath(other))
        if got.status != "ok":
            self.notify(f"{shown(got.path)}: {shown(got.error)}", markup=False, severity="error")
            return None
        prev, cur = self.seal, got
        if str(snap_of(got).created_at) < str(self.snap.created_at):
            prev, cur = got, self.seal
        doc = diff_seals(snap_of(prev), snap_of(cur), tiers=self.tiers)
        self.add_session(
            export.diff_record(doc, prev.path, cur.path, tiers_path=self.tiers_path),
            key=("diff", prev.path, cur.path),
        )
        screen = SealDiffScreen(
            prev, cur, tiers=self.tiers, tiers_path=self.tiers_path, doc=doc, owner=self
        )
        self.app.push_screen(screen)
        return screen

    # ------------------------------------------------------------------ ledger link
    def link_ledger(self, ref: export.SnapshotRowRef) -> bool:
        """Link a `continuity_snapshot` row to this seal when its digests match."""
        if self.seal.status != "ok" or not ref.matches(self.snap):
            return False
        if all((r.path, r.line) != (ref.path, ref.line) for r in self.ledger_links):
            self.ledger_links = (*self.ledger_links, ref)
        return True

    def ledger_opened(self, path: str) -> None:
        self.scan_ledger(path)

    @work(thread=True, group="seal-link")
    def scan_ledger(self, path: str | os.PathLike) -> None:
        """Find this seal's `continuity_snapshot` rows in a ledger (thread worker)."""
        if self.seal.status != "ok":
            return
        try:
            refs = [r for r in export.iter_snapshot_rows(path) if r.matches(self.snap)]
        except OSError:
            return
        for ref in refs:
            self.app.call_from_thread(self.link_ledger, ref)

    def action_jump_ledger(self) -> None:
        if not self.ledger_links:
            self.notify("no open ledger holds this seal's continuity_snapshot row", markup=False)
            return
        ref = self.ledger_links[0]
        self.post_message(JumpToLedgerRow(ref.path, ref.line))

    # ------------------------------------------------------------------ prompts
    def _ask(
        self, title: str, placeholder: str, then, choices: list[tuple[Text, str]] | None = None
    ) -> None:
        """Ask for a path (or one of `choices`, when there are any), then `then(path)`."""

        def done(value: str | None) -> None:
            if not value:
                return
            p = pasted_path(value)
            if p is None:
                self.notify("no such file: " + shown(value), markup=False, severity="warning")
                return
            then(str(p))

        if choices:
            self.app.push_screen(
                ChoiceScreen(title, choices, "or " + placeholder, id="seal-choice"), done
            )
        else:
            self.app.push_screen(
                PromptScreen(title, placeholder, suggester=PathSuggester(), id="seal-prompt"), done
            )

    def open_seal_choices(self) -> list[tuple[Text, str]]:
        """The other seals open in the app, valid ones first, as (label, path)."""
        others = [t for t in self.app.query(SealTab) if t is not self]
        others.sort(key=lambda t: t.seal.status != "ok")
        out = []
        for t in others:
            label = Text()
            word = _verdict.seal(t.seal.status).verdict
            label.append(f"{_verdict.glyph(word)} ", TONE_STYLE[_verdict.tone(word)])
            label.append(shown(t.tab_name), "bold")
            if t.seal.status == "ok":
                label.append("  label ", "dim")
                label.append(_short(shown(t.snap.label), 24))
                label.append("  sealed ", "dim")
                label.append(shown(t.snap.created_at))
            else:
                label.append(f"  {word}", "dim")
            out.append((label, t.path))
        return out

    def action_restate(self) -> None:
        if self._need_seal():
            self._ask(
                "Score a restatement against this seal",
                "path to a JSON object {probe_id: answer}",
                self.score,
            )

    def action_toggle_strict(self) -> None:
        self.strict = not self.strict
        self.notify(f"{'strict' if self.strict else 'loose (containment)'} mode", markup=False)
        self._rescore()

    def action_tiers(self) -> None:
        self._ask("Severity tiers", "path to a JSON object {tier: [field, ...]}", self.load_tiers)

    def action_added(self) -> None:
        if self._need_seal():
            self._ask(
                "What was added since this seal?",
                "path to a newer manifest or a newer snapshot",
                self.load_newer_manifest,
            )

    def action_diff(self) -> None:
        """Diff against one of the other open seals, or a snapshot file by path."""
        if self._need_seal():
            self._ask(
                "Diff against another seal",
                "path to another snapshot file",
                self.open_diff,
                choices=self.open_seal_choices(),
            )

    def action_export(self) -> None:
        self.app.push_screen(self.export_screen())

    def export_screen(self) -> ExportScreen:
        """Its validation and its session: restatements scored, diffs, added since."""
        return ExportScreen(self.path, kind="snapshot", session=self.session, seal=self.seal)
