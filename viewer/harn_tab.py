"""HarnTab: a harn transcript or run record, its compaction events and their receipts.

Read-only. Left: the compaction events in order (one line each, with the worst finding).
Right: the selected event's receipt panel (identity, a before/after token bar, the
archived claim beside what the content shows, recap, source measurement, snapshot and
following state, findings) and the archived messages taken from its snapshot, shown
literally. Every string taken from the file goes through `sealscope.core.sanitize.clean`
and reaches the screen as a `rich.text.Text`, never as markup.

Mount it with a path (or a loaded `HarnDocument`): `HarnTab("run.json", id="harn")`.
A file that cannot be read shows its one-line error in place of the panels. In the
app it sits in a `HarnPane` (an `EvidenceTab`): `HarnPane(doc_or_path, id="harn-3")`.
"""

from __future__ import annotations

import json
import os
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from sealscope.core import harn
from sealscope.core import verdict as _verdict
from sealscope.core.compaction_series import SeriesPoint, harn_event_point
from sealscope.core.sanitize import clean
from sealscope.viewer.banner import Banner, badge
from sealscope.viewer.commands import PaletteBinding
from sealscope.viewer.compaction_chart import CompactionChart
from sealscope.viewer.evidence_tab import EvidenceTab, tab_label, tab_title
from sealscope.viewer.export_action import ExportScreen
from sealscope.viewer.remeasure import remeasure
from sealscope.viewer.style import ARCHIVED_STYLE, FINDING_STYLE, shown
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

__all__ = ["HarnTab", "HarnPane"]

BAR_WIDTH = 32
MESSAGE_LIMIT = 4000  # characters of one archived message shown before eliding the rest


EVENT_MARKS = {"high": "✖", "medium": "!", "low": "·", "info": "·"}  # by worst finding


def _lines(text: str) -> list[str]:
    """Real lines of evidence text, each cleaned (controls inside a line stay escaped)."""
    return [clean(line) for line in text.split("\n")]


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    try:
        # on screen as stored (NaN as NaN): display text, not a JSON document
        return json.dumps(harn.bounded(content, 16), ensure_ascii=False, indent=2, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        return repr(content)


def _measure(v: int | None) -> Text:
    return Text("not measured", style="dim italic") if v is None else Text(str(v))


class HarnTab(Widget):
    """Compaction events of one harn transcript or run record; read-only."""

    LEGEND_TITLE = "compaction event marks"
    LEGEND = (
        ("✖", FINDING_STYLE["high"], "a high-severity finding"),
        ("!", FINDING_STYLE["medium"], "a medium one at worst"),
        ("·", FINDING_STYLE["low"], "low or info findings only"),
        ("✓", "green", "no finding"),
    )

    DEFAULT_CSS = """
    HarnTab { height: 1fr; layout: vertical; }
    HarnTab #harn-body { height: 1fr; }
    HarnTab #harn-events { width: 46; height: 1fr; border: round $primary 50%; }
    HarnTab #harn-detail { width: 1fr; height: 1fr; border: round $primary 50%; }
    HarnTab #harn-receipt { height: auto; padding: 0 1; }
    HarnTab #harn-archived { height: auto; padding: 0 1; margin-top: 1; }
    HarnTab .harn-error { padding: 1 2; color: $error; }
    """

    def __init__(
        self,
        source: str | os.PathLike | harn.HarnDocument,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._source = source
        self.document: harn.HarnDocument | None = None
        self.checks: tuple[harn.CompactionCheck, ...] = ()
        self.error: str | None = None
        self.selected: int | None = None
        self.banner_view: Text = Text("")
        self.receipt_view: RenderableType = Text("no compaction events", style="dim")
        self.archived_view: RenderableType = Text("")
        self._load()

    def _load(self) -> None:
        if isinstance(self._source, harn.HarnDocument):
            self.document = self._source
        else:
            try:
                self.document = harn.load(self._source)
            except harn.HarnError as e:
                self.error = e.message
                return
        self.checks = harn.check_document(self.document)

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        self.banner_view = self._banner()
        yield Banner(self.banner_view, outcome=self.outcome(), id="harn-banner")
        if self.error is not None:
            return
        with Horizontal(id="harn-body"):
            yield OptionList(
                *[
                    Option(self._event_line(i, c), id=f"event-{i}")
                    for i, c in enumerate(self.checks)
                ],
                id="harn-events",
                markup=False,
            )
            with VerticalScroll(id="harn-detail"):
                yield Static(Text("no compaction events", style="dim"), id="harn-receipt")
                yield Static(Text(""), id="harn-archived")

    def on_mount(self) -> None:
        if self.checks:
            self.query_one("#harn-events", OptionList).highlighted = 0
            self.show(0)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_index is not None:
            self.show(event.option_index)

    def show(self, index: int) -> None:
        """Show the receipt panel and archived messages of compaction `index`."""
        check = self.checks[index]
        self.selected = index
        self.receipt_view = self._receipt_panel(index, check)
        self.archived_view = self._archived_panel(check)
        receipt = self.query_one("#harn-receipt", Static)
        archived = self.query_one("#harn-archived", Static)
        receipt.update(self.receipt_view)
        archived.update(self.archived_view)
        remeasure(receipt, archived)

    def chart_points(self) -> list[SeriesPoint]:
        """Estimated tokens before and after each compaction, in order (the chart's and
        the export's series)."""
        return [harn_event_point(i, c.event) for i, c in enumerate(self.checks, 1)]

    def action_chart(self) -> None:
        """`C`: the tokens chart; Enter on a compaction selects its event."""
        if self.error is not None:
            return

        def done(event: int | None) -> None:
            if event:
                ol = self.query_one("#harn-events", OptionList)
                ol.highlighted = event - 1
                ol.focus()

        name = os.path.basename(str(getattr(self.document, "path", "") or "harn"))
        self.app.push_screen(
            CompactionChart(
                f"Compactions of {clean(name)}", self.chart_points(), id="compaction-chart"
            ),
            done,
        )

    # ------------------------------------------------------------------ renderers

    def outcome(self) -> _verdict.Outcome:
        """The harn verb's verdict of the file (COULD NOT LOOK when it cannot be read)."""
        if self.error is not None:
            return _verdict.harn(None, readable=False)
        return harn.outcome_of(self.checks)

    def _banner(self) -> Text:
        t = badge(self.outcome().verdict)
        if self.error is not None:
            t.append("  ")
            t.append(shown(self.error))
            return t
        doc = self.document
        assert doc is not None
        counts = {s: 0 for s in harn.SEVERITIES}
        for c in self.checks:
            for f in c.findings:
                counts[f.severity] += 1
        what = "run record" if doc.kind == "run" else "transcript"
        t.append("  ")
        t.append(shown(doc.path or ""), "bold")
        t.append(f"  {what}")
        if doc.run_id:
            t.append(f" {shown(doc.run_id)}")
        t.append(
            f" · {len(doc.transcripts)} transcript(s) · {len(self.checks)} compaction(s)"
            " · findings: "
        )
        t.append_text(
            Text.assemble(
                (f"{counts['high']} high", FINDING_STYLE["high"]),
                ", ",
                (f"{counts['medium']} medium", FINDING_STYLE["medium"]),
                ", ",
                (f"{counts['low']} low", FINDING_STYLE["low"]),
                ", ",
                (f"{counts['info']} info", FINDING_STYLE["info"]),
            )
        )
        return t

    def _event_line(self, i: int, check: harn.CompactionCheck) -> Text:
        ev = check.event
        worst = check.worst
        mark = EVENT_MARKS.get(worst or "", "✓")
        t = Text.assemble(
            (f"{mark} ", FINDING_STYLE.get(worst or "", "green")), (f"#{i + 1} ", "bold")
        )
        ident = ev.id or "(no id)"
        t.append(shown(ident if len(ident) <= 30 else "…" + ident[-29:]))
        t.append("\n   ")
        t.append(
            f"{'receipt v' + str(ev.schema_version) if ev.path == 'receipt' else 'legacy v0'}"
            f" · {shown(ev.mode or '?')} · {shown(ev.engine_strategy or ev.strategy or '?')}",
            style="dim",
        )
        if self.document is not None and self.document.kind == "run":
            t.append("\n   ")
            t.append(shown(check.transcript.stage_id or ev.location), style="dim italic")
        return t

    def _token_bar(self, before: int, after: int) -> Text:
        top = max(before, after, 1)
        t = Text()
        for label, value, style in (("before", before, "blue"), ("after ", after, "green")):
            fill = round(value * BAR_WIDTH / top)
            t.append(f"{label} {value:>8} ")
            t.append("█" * fill, style=style)
            t.append("░" * (BAR_WIDTH - fill), style="dim")
            t.append("\n")
        if before:
            pct = round((after - before) * 100 / before)
            t.append(f"change {pct:+d}%", style="red" if after >= before else "green")
        else:
            t.append("change n/a", style="dim")
        return t

    def _receipt_panel(self, i: int, check: harn.CompactionCheck) -> Group:
        ev = check.event
        t = Text()
        t.append(f"#{i + 1} ", style="bold")
        t.append(shown(ev.id or "(no id)"), style="bold")
        t.append("\n")
        path = (
            f"receipt · schema_version {ev.schema_version}"
            if ev.path == "receipt"
            else "legacy flat metadata · schema_version 0"
        )
        t.append(path, style="cyan")
        if ev.receipt_error:
            t.append("  (embedded receipt unreadable: ", style="yellow")
            t.append(shown(ev.receipt_error), style="yellow")
            t.append(")", style="yellow")
        t.append("\n")
        rows: list[tuple[str, Text]] = [
            (
                "where",
                Text(
                    f"{shown(ev.location)} · event {ev.event_index}"
                    + (
                        f" · stage {shown(check.transcript.stage_id)}"
                        if check.transcript.stage_id
                        else ""
                    )
                ),
            ),
            ("mode", Text(f"{shown(ev.mode or '—')} · reason {shown(ev.reason or '—')}")),
            (
                "strategy",
                Text(
                    f"{shown(ev.strategy or '—')} · engine "
                    f"{shown(ev.engine_strategy or '—')}"
                    + (
                        f" · requested {shown(ev.requested_strategy)}"
                        if ev.requested_strategy is not None
                        else ""
                    )
                ),
            ),
        ]
        if ev.resolved_threshold_tokens is not None or ev.hard_limit_tokens is not None:
            threshold = ev.resolved_threshold_tokens
            rows.append(
                (
                    "threshold",
                    Text(
                        f"{threshold if threshold is not None else '—'}"
                        f" ({shown(ev.threshold_source or 'source not recorded')}) · hard limit "
                        f"{ev.hard_limit_tokens if ev.hard_limit_tokens is not None else '—'}"
                    ),
                )
            )
        if ev.session_id is not None or ev.receipt_id is not None:
            rows.append(
                (
                    "identity",
                    Text(
                        f"receipt {shown(ev.receipt_id or '—')} · session "
                        f"{shown(ev.session_id or '—')}"
                    ),
                )
            )
        arch = Text(f"{ev.archived_messages} claimed")
        if check.inference is not None:
            inf = check.inference
            tone = (
                "fail"
                if inf.archived > ev.archived_messages
                else "warn"
                if inf.archived < ev.archived_messages
                else "pass"
            )
            style = ARCHIVED_STYLE[tone]
            arch.append(" · content shows ")
            arch.append(f"{inf.archived} gone", style=style)
            arch.append(f", {inf.prefix} kept before the summary, {inf.kept} after it")
            if inf.appended:
                arch.append(f", {inf.appended} appended later")
        else:
            arch.append(" · not checked against content", style="dim")
        rows.append(("archived", arch))
        if ev.recap is not None:
            r = ev.recap
            rows.append(
                (
                    "recap",
                    Text(
                        f"{r.recap_bytes} / {r.budget_bytes} bytes · "
                        f"{r.kept_results_count} results kept · "
                        f"{r.dropped_count} dropped · prior recap "
                        f"{'carried' if r.carried_prior_recap else 'not carried'}"
                    ),
                )
            )
        else:
            rows.append(("recap", Text("none recorded", style="dim")))
        sm = ev.source_measurement
        if sm is None:
            rows.append(("measured", Text("no source measurement (not measured)", style="dim")))
        else:
            m = Text()
            for label, v in (
                ("source messages", sm.source_message_count),
                ("source bytes", sm.source_bytes),
                ("summary bytes", sm.summary_bytes),
                ("carried", sm.carried_source_bytes),
            ):
                if m:
                    m.append(" · ")
                m.append(f"{label} ")
                m.append_text(_measure(v))
            rows.append(("measured", m))
        if check.snapshot is not None:
            snap = check.snapshot
            count = "no messages" if snap.messages is None else f"{len(snap.messages)} messages"
            rows.append(
                ("snapshot", Text(f"{shown(snap.asset_id)} at {shown(snap.location)} · {count}"))
            )
        else:
            rows.append(
                (
                    "snapshot",
                    Text(
                        "none named"
                        if not ev.snapshot_asset_id
                        else f"{shown(ev.snapshot_asset_id)} (not found)",
                        style="yellow",
                    ),
                )
            )
        if check.following is not None:
            fs = check.following
            src = (
                "the transcript's current messages"
                if fs.source == "current"
                else f"the next snapshot {shown(fs.asset_id or '')}"
            )
            rows.append(("followed", Text(f"{len(fs.messages)} messages ({src})")))
        else:
            rows.append(("followed", Text("not recorded", style="dim")))
        rows.append(
            ("tokens", self._token_bar(ev.estimated_tokens_before, ev.estimated_tokens_after))
        )
        grid = Table.grid(padding=(0, 2), expand=True)
        grid.add_column(justify="right", style="bold", no_wrap=True)
        grid.add_column(ratio=1)
        for label, value in rows:
            grid.add_row(label, value)
        findings = Table.grid(padding=(0, 1), expand=True)
        findings.add_column(no_wrap=True)
        findings.add_column(ratio=1)
        for f in check.findings:
            findings.add_row(
                Text(f.severity.upper(), style=FINDING_STYLE.get(f.severity, "")),
                Text.assemble((shown(f.code), "bold"), "  ", shown(f.message)),
            )
        if not check.findings:
            findings.add_row(Text("none", style="green"), Text("every check held", style="green"))
        t.rstrip()
        return Group(t, grid, Text(""), Text("findings", style="bold"), findings)

    def _archived_panel(self, check: harn.CompactionCheck) -> Group:
        head = Text("archived messages", style="bold")
        archived = check.archived
        if check.inference is None or check.snapshot is None:
            return Group(
                head,
                Text(
                    "  not available: the snapshot or the messages that "
                    "followed are not in the file",
                    style="dim",
                ),
            )
        start = check.inference.prefix
        end = start + len(archived) - 1 if archived else start
        head.append(f" ({len(archived)}, positions {start}–{end} of snapshot ")
        head.append(shown(check.snapshot.asset_id))
        head.append(")")
        grid = Table.grid(padding=(0, 1), expand=True)
        grid.add_column(no_wrap=True, style="dim")
        grid.add_column(ratio=1)
        for offset, message in enumerate(archived):
            pos = start + offset
            if isinstance(message, dict):
                role = message.get("role")
                title = Text(
                    shown(role) if isinstance(role, str) else "(no role)", style="bold cyan"
                )
                extras = [
                    f"{shown(k)}={shown(v)}"
                    for k, v in message.items()
                    if k in ("name", "tool_call_id") and isinstance(v, str)
                ]
                if "tool_calls" in message:
                    extras.append("tool_calls")
                if extras:
                    title.append("  " + " · ".join(extras), style="dim")
                content = message.get("content")
            else:
                title = Text("(not a message object)", style="bold cyan")
                content = message
            grid.add_row(Text(f"[{pos}]", style="bold cyan"), title)
            text = _content_text(content)
            elided = len(text) - MESSAGE_LIMIT if len(text) > MESSAGE_LIMIT else 0
            body = Text("\n".join(_lines(text[:MESSAGE_LIMIT])))
            if elided:
                body.append(f"\n… {elided} more characters not shown", style="dim italic")
            grid.add_row(Text("  │"), body)
        return Group(head, grid)


class HarnPane(EvidenceTab):
    """The tab of one harn file: a HarnTab."""

    kind_name = "harn"

    DEFAULT_CSS = """
    HarnPane { layout: vertical; padding: 0; height: 1fr; }
    """

    def __init__(
        self,
        source: str | os.PathLike | harn.HarnDocument,
        *,
        path: str | os.PathLike | None = None,
        id: str | None = None,
    ) -> None:
        if path is None:
            path = (source.path if isinstance(source, harn.HarnDocument) else source) or ""
        self.path = os.fspath(path)
        self.harn = HarnTab(source, id=f"{id}-view" if id else None)
        self.tab_name = tab_label(self.path)
        super().__init__(tab_title(self.tab_name, self.own_outcome().verdict), self.harn, id=id)

    BINDINGS = [
        PaletteBinding(
            "C",
            "chart",
            "Chart",
            title="Compaction chart",
            help="Estimated tokens before and after each compaction; Enter selects the event",
        ),
    ]

    def action_chart(self) -> None:
        """`C`: the tokens chart of this file (`HarnTab.action_chart`)."""
        self.harn.action_chart()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "chart":
            return self.harn.error is None
        return super().check_action(action, parameters)

    def on_mount(self) -> None:
        self.judge()

    def own_outcome(self) -> _verdict.Outcome:
        """The harn verb's verdict of the file (`HarnTab.outcome`)."""
        return self.harn.outcome()

    def main_widget(self) -> Widget | None:
        """The event list (a file that could not be read has none)."""
        events = self.harn.query("#harn-events")
        return events.first() if events else None

    def export_screen(self) -> ExportScreen:
        """Its compaction events and findings, judged as the harn verb judges them."""
        return ExportScreen(self.path, kind="harn")
