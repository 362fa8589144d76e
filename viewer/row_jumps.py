"""RowJumps: what a ledger tab does from the selected row — copy it, follow the line it
names, step between receipts. A part of `LedgerTab` (`tab.jumps`), not drawn.

* Copy (`y`): the row's `chain`, the row as stored, or a digest it carries (every string
  member named `…digest`/`…sha256`, or spelled `sha256:…`, nested members by their
  path), picked in a small list; the text goes to the terminal's clipboard by
  Textual's `copy_to_clipboard` (OSC 52). Terminals that do not take OSC 52 (macOS
  Terminal.app, and tmux unless `set-clipboard` is on) leave the clipboard as it was;
  the notification then says what was copied, so it can be read off.
* Jump (`j`): from a `continuity_snapshot` row to its seal tab; from a
  `chain_break_declared` row to the line it declares (`orphan_line`); from a break to
  the row its explanation names (`core.explain.Mismatch`: the row whose stored chain
  this one follows, else the next row that still links to it), else the first
  `line N` of the finding's text.
* Receipts (`>` and `<`): the next and previous compaction receipt row after the
  cursor (kept until the file is indexed).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from rich.text import Text
from sealscope.core.sanitize import clean
from sealscope.viewer.style import dialog_css
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

if TYPE_CHECKING:  # the tab composes this part
    from sealscope.viewer.ledger_tab import LedgerTab
    from sealscope.viewer.source import RowInfo

__all__ = ["RowJumps", "CopyScreen", "copy_choices", "named_line"]

_LINE = re.compile(r"\bline (\d+)\b")
_DIGEST_KEYS = ("digest", "sha256", "hash")


def _digests(value: Any, path: str, out: list[tuple[str, str]], depth: int = 0) -> None:
    if depth > 8 or len(out) >= 24:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            name = f"{path}.{k}" if path else str(k)
            if isinstance(v, str) and v and k != "chain":
                if str(k).lower().endswith(_DIGEST_KEYS) or v.startswith("sha256:"):
                    out.append((name, v))
            else:
                _digests(v, name, out, depth + 1)


def copy_choices(info: RowInfo) -> list[tuple[str, str]]:
    """(what, text) a row offers to copy: its chain, the row as stored, its digests."""
    out: list[tuple[str, str]] = []
    obj = info.obj if isinstance(info.obj, dict) else {}
    chain = obj.get("chain")
    if isinstance(chain, str) and chain:
        out.append(("chain", chain))
    if info.raw:
        out.append(("row", info.raw))
    found: list[tuple[str, str]] = []
    _digests(obj, "", found)
    out += [(f"digest {clean(name)}", v) for name, v in found]  # the row's own keys
    return out


def named_line(info: RowInfo, finding: str | None, explained: Any) -> int | None:
    """The line row `info` names (see the module), or None: a declared break's
    `orphan_line`, a break's explanation's row, else `line N` in the finding."""
    obj = info.obj if isinstance(info.obj, dict) else {}
    if info.kind == "chain_break_declared":
        ol = obj.get("orphan_line")
        return ol if isinstance(ol, int) and not isinstance(ol, bool) and ol > 0 else None
    if explained is not None:
        if explained.follows_line:
            return int(explained.follows_line)
        if explained.next_line:
            return int(explained.next_line)
    # a finding opens with its own `line N:`; the line it names is another one
    return next(
        (int(m.group(1)) for m in _LINE.finditer(finding or "") if int(m.group(1)) != info.line),
        None,
    )


class CopyScreen(ModalScreen[str | None]):
    """Pick what to copy (`choices`: (what, text)); dismiss with the text, None on escape."""

    DEFAULT_CSS = (
        dialog_css("CopyScreen", "copy-box", 90, max_height="90%")
        + """
    #copy-list { height: auto; max-height: 16; }
    #copy-hint { margin-top: 1; width: 100%; }
    """
    )

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, line: int, choices: list[tuple[str, str]]) -> None:
        super().__init__(id="copy-screen")
        self.line = line
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical(id="copy-box"):
            yield Label(Text(f"Copy from line {self.line:,}", "bold"), id="copy-title")
            options = []
            for what, text in self.choices:
                label = Text(f"{what:<22} ", "bold")
                shown = clean(text)
                label.append(shown if len(shown) <= 56 else shown[:55] + "…")
                options.append(Option(label))
            yield OptionList(*options, id="copy-list", markup=False)
            yield Label(
                Text(
                    "Enter copies (OSC 52: not in macOS Terminal.app, nor tmux without "
                    "set-clipboard on) · Esc cancels",
                    "dim",
                ),
                id="copy-hint",
            )

    def on_mount(self) -> None:
        ol = self.query_one(OptionList)
        ol.highlighted = 0
        ol.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[event.option_index][1])

    def action_cancel(self) -> None:
        self.dismiss(None)


class RowJumps:
    """Copy, jump and receipt steps of `tab` (see the module)."""

    def __init__(self, tab: LedgerTab) -> None:
        self.tab = tab

    def _current(self) -> RowInfo | None:
        line = self.tab.rows.current_line
        return self.tab.source.row(line) if line else None

    # ------------------------------------------------------------------ copy
    def copy(self) -> None:
        info = self._current()
        choices = copy_choices(info) if info is not None else []
        if info is None or not choices:
            self.tab.app.notify("nothing to copy on this row", markup=False)
            return

        def done(text: str | None) -> None:
            if text is None:
                return
            self.tab.app.copy_to_clipboard(text)
            what = next(w for w, t in choices if t == text)
            shown = clean(text)
            self.tab.app.notify(
                f"copied {what} of line {info.line:,}: "
                + (shown if len(shown) <= 80 else shown[:79] + "…"),
                markup=False,
            )

        self.tab.app.push_screen(CopyScreen(info.line, choices), done)

    # ------------------------------------------------------------------ jump
    def jump(self) -> bool:
        """Go to the line the selected row names; False when it names none (the
        caller tries a seal)."""
        tab = self.tab
        info = self._current()
        if info is None:
            return False
        f = tab.rows.findings.get(info.line)
        target = named_line(info, f[1] if f else None, tab.explained(info.line) if f else None)
        if target is None:
            return False
        if not tab.goto_row(target):
            tab.app.notify(
                f"line {info.line:,} names line {target:,}, which the file does not have "
                f"({tab.rows.shown_lines:,} lines)",
                markup=False,
                severity="warning",
            )
        return True

    # ------------------------------------------------------------------ receipts
    def step_receipt(self, backwards: bool) -> None:
        """The next (or previous) compaction receipt row: the receipts found, or (while
        they are being found) the file's receipt lines; kept until the index is done."""
        tab = self.tab
        if tab.receipts is None and not tab.source.complete:
            tab.when_indexed(lambda: self.step_receipt(backwards), "the next receipt")
            return
        receipts = tab.receipts if tab.receipts is not None else tab.source.receipt_lines()
        cur = tab.rows.current_line or 0
        lines = [n for n in receipts if (n < cur if backwards else n > cur)]
        if lines:
            tab.goto_row(lines[-1] if backwards else lines[0])
        elif not receipts:
            tab.app.notify("no compaction receipts in this ledger", markup=False)
        else:
            tab.app.notify("no earlier receipt" if backwards else "no later receipt", markup=False)
