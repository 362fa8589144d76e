"""Held content for one receipt: load the pre and/or post content, recompute, and show
the verdict field by field, each manifest entry matched to the held item it names (with
a preview), drops the manifest does not declare, and manifest entries no held item
explains.

Loading is `sealscope.core.held.load_held`; the verdict is
`sealscope.core.receipt.verify_receipt`. Paths come from the inputs (with completion),
or from a paste anywhere on this screen (dragging a file onto a terminal pastes its
path). A relative path is the ledger's folder's first, then the current directory's
(`prompt.pasted_path`). A field loads what it holds when Enter is pressed in it, when it
is left, and when a path is pasted into it; until then its line says
"not loaded — Enter", never a bare "not loaded" under a path.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from sealscope.core.export import recompute_record
from sealscope.core.held import item_label, values_of
from sealscope.core.receipt import manifest_gaps
from sealscope.core.sanitize import clean
from sealscope.viewer.lookup_screen import load_items
from sealscope.viewer.messages import LookUp
from sealscope.viewer.prompt import PathSuggester, pasted_path, preview
from sealscope.viewer.receipt_panel import check_receipt, render_receipt
from sealscope.viewer.style import shown
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, Static

if TYPE_CHECKING:
    from sealscope.viewer.ledger_tab import LedgerTab


class PathField(Input):
    """A path field that tells its screen when text was pasted into it (the Input
    takes the paste and stops it, so the screen never hears of it otherwise)."""

    class Pasted(Message):
        def __init__(self, field: PathField) -> None:
            super().__init__()
            self.field = field

    def on_paste(self, _event: events.Paste) -> None:
        self.post_message(self.Pasted(self))


def short(d: str, n: int = 28) -> str:
    d = shown(d)
    if ":" in d and len(d) > n:
        head, _, hexpart = d.rpartition(":")
        return f"{head}:{hexpart[:10]}…"
    return d if len(d) <= n else d[: n - 1] + "…"


def match_report(row: dict, pre: list | None, post: list | None, check: Any) -> Text:
    """Manifest entries ↔ held items, undeclared drops, unexplained entries."""
    t = Text(end="")
    dropped = row.get("dropped") if isinstance(row, dict) else None
    manifest = dropped.get("items") if isinstance(dropped, dict) else None
    manifest = [d for d in manifest if isinstance(d, str)] if isinstance(manifest, list) else []
    by_digest: dict[str, list] = {}
    for side, items in (("pre", pre or []), ("post", post or [])):
        for it in items:
            by_digest.setdefault(it.digest, []).append((side, it))

    t.append(
        f"drop manifest: {len(manifest)} entr{'y' if len(manifest) == 1 else 'ies'}\n",
        "bold underline",
    )
    unexplained = []
    for pos, d in enumerate(manifest):
        hits = [it for side, it in by_digest.get(d, []) if side == "pre"] or [
            it for side, it in by_digest.get(d, [])
        ]
        t.append(f"  [{pos}] ", "bold")
        t.append(short(d, 40))
        if hits:
            it = hits[0]
            t.append("  ✓ held ", "green")
            t.append(clean(item_label(it)), "bold")
            t.append(f" ({it.size:,} B): ")
            t.append(preview(it.value, 60), "italic")
        elif pre is None and post is None:
            t.append("  (load held content to match)", "dim")
        else:
            t.append("  ✗ no held item has this digest", "bold red")
            unexplained.append((pos, d))
        t.append("\n")
    if not manifest:
        t.append("  (empty: the receipt claims nothing was dropped)\n", "dim")

    drops = getattr(getattr(check, "recomputed", None), "drops", None)
    if drops is not None:
        hidden, invented = manifest_gaps(row, check)
        undeclared, phantom = Counter(hidden), Counter(invented)
        t.append("\n recomputed from the held content\n", "bold underline")
        t.append(
            f"  dropped {len(drops.items)} item(s), {drops.bytes:,} B; introduced "
            f"{drops.introduced_count} item(s), {drops.introduced_bytes:,} B\n"
        )
        if undeclared:
            t.append(
                f"  ⚠ {sum(undeclared.values())} drop(s) the manifest does not declare "
                "(the receipt hides them):\n",
                "bold red",
            )
            for d, n in undeclared.items():
                for _side, it in by_digest.get(d, [])[:1]:
                    t.append(f"    {short(d, 40)} ", "red")
                    if n > 1:
                        t.append(f"×{n} ", "red")
                    t.append(clean(item_label(it)) + f" ({it.size:,} B): ", "bold")
                    t.append(preview(it.value, 60), "italic")
                    t.append("\n")
        if phantom:
            t.append(
                f"  ⚠ {sum(phantom.values())} manifest entr(ies) claim a drop the content "
                "does not show\n",
                "bold yellow",
            )
        if not undeclared and not phantom:
            t.append("  ✓ the manifest matches the drops recomputed from the content\n", "green")

    if unexplained:
        t.append(
            f"\n manifest entries no held item explains: {len(unexplained)}\n", "bold underline"
        )
        for pos, d in unexplained:
            t.append(f"  [{pos}] {short(d, 84)}\n", "yellow")
    return t


def content_report(check: Any) -> Text:
    t = Text(end="")
    cc = getattr(check, "content_checks", ()) or ()
    if not cc:
        return t
    t.append("\n content checks\n", "bold underline")
    for c in cc:
        ok = getattr(c, "ok", False)
        t.append("  ✓ " if ok else "  ✗ ", "green" if ok else "bold red")
        t.append(shown(getattr(c, "name", "")))
        d = getattr(c, "detail", "")
        if d and not ok:
            t.append("  " + shown(d), "red")
        t.append("\n")
    rec = getattr(check, "recomputed", None)
    for side in ("pre", "post"):
        c = getattr(rec, side, None) if rec is not None else None
        if c is not None:
            t.append(f"  recomputed {side}: ", "bold")
            t.append(f"{c.count} items, {c.bytes:,} B, {short(c.digest, 40)}\n")
    return t


class HeldContentScreen(Screen):
    """Recompute one receipt against held content."""

    DEFAULT_CSS = """
    #held-results Static { height: auto; }
    #held-results { height: 1fr; }
    #held-left { width: 1fr; padding: 0 1; }
    #held-right { width: 1fr; padding: 0 1; border-left: vkey $primary 50%; }
    """

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("ctrl+r", "recompute", "Recompute"),
        Binding("ctrl+l", "lookup", "Look up"),
    ]

    def __init__(
        self, tab: LedgerTab, line: int, pre: Path | None = None, post: Path | None = None
    ) -> None:
        super().__init__()
        self.tab, self.line = tab, line
        self.row = tab.source.row(line).obj
        self.pre_path, self.post_path = pre, post
        self.pre_items: list | None = None
        self.post_items: list | None = None
        self.errors: dict[str, str] = {}
        self.check: Any = None
        self.cerr: str | None = None
        self.base = Path(tab.path).parent  # a relative path is the evidence folder's first
        # the text each field held when it was last loaded (or refused)
        self.taken = {"pre": str(pre or ""), "post": str(post or "")}

    def compose(self) -> ComposeResult:
        title = Text(end="")
        title.append(" held content ", "bold reverse")
        title.append(f"  receipt at {clean(self.tab.source.name)} line {self.line}")
        yield Static(title, classes="screen-title")
        with Horizontal(classes="field-row"):
            yield Label("pre content")
            yield PathField(
                value=str(self.pre_path or ""),
                placeholder="path to the pre content "
                "(.json array, .jsonl, any file, or a folder) — or paste/drag it here",
                suggester=PathSuggester(self.base),
                id="pre",
            )
        with Horizontal(classes="field-row"):
            yield Label("post content")
            yield PathField(
                value=str(self.post_path or ""),
                placeholder="path to the post (survivor) content",
                suggester=PathSuggester(self.base),
                id="post",
            )
        with Horizontal(id="held-results"):
            with VerticalScroll(id="held-left"):
                yield Static(id="held-verdict")
            with VerticalScroll(id="held-right"):
                yield Static(id="held-matches")
        yield Footer()

    def on_mount(self) -> None:
        self._recompute_now()
        if self.pre_path or self.post_path:
            self.load()
        self.query_one("#pre", Input).focus()

    # ------------------------------------------------------------------ input
    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._take(event.input.id or "", event.value)
        if event.input.id == "pre":
            self.query_one("#post", Input).focus()

    def _take(self, which: str, value: str) -> None:
        self.taken[which] = value
        value = value.strip()
        p = pasted_path(value, self.base) if value else None
        if value and p is None:
            self.errors[which] = f"no such file: {value}"
            self._recompute_now()
            return
        if which == "pre":
            self.pre_path = p
            if p is None:
                self.pre_items = None
        else:
            self.post_path = p
            if p is None:
                self.post_items = None
        self.errors.pop(which, None)
        self.load()

    def _pending(self, which: str) -> bool:
        """Field `which` holds text it has not loaded (typed or pasted since)."""
        try:
            value = self.query_one(f"#{which}", Input).value
        except Exception:  # noqa: BLE001 - not composed yet
            return False
        return value.strip() != self.taken.get(which, "").strip()

    def on_input_blurred(self, event: Input.Blurred) -> None:
        """A field left holding text it has not loaded loads it."""
        which = event.input.id or ""
        if which in ("pre", "post") and self._pending(which):
            self._take(which, event.input.value)

    def on_input_changed(self, event: Input.Changed) -> None:
        """Typing redraws the field's line ("not loaded — Enter")."""
        if event.input.id in ("pre", "post") and self.is_mounted:
            self._paint()

    def on_path_field_pasted(self, m: PathField.Pasted) -> None:
        """A path pasted into a field (the field took the text): it loads."""
        m.stop()
        which = m.field.id or ""
        if which in ("pre", "post") and self._pending(which):
            self._take(which, m.field.value)

    def on_paste(self, event: events.Paste) -> None:
        if isinstance(self.focused, Input):
            return  # the field takes the text (and loads it: `on_path_field_pasted`)
        p = pasted_path(event.text, self.base)
        if p is None:
            return
        event.stop()
        which = "pre" if self.pre_path is None else "post"
        self.query_one(f"#{which}", Input).value = str(p)
        self._take(which, str(p))

    def action_recompute(self) -> None:
        for which in ("pre", "post"):
            self._take(which, self.query_one(f"#{which}", Input).value)

    def action_lookup(self) -> None:
        self.post_message(LookUp(path=self.pre_path, origin=self.tab))

    # ------------------------------------------------------------------ work
    @work(thread=True, exclusive=True, group="held")
    def load(self) -> None:
        pre = post = None
        errors: dict[str, str] = {}
        if self.pre_path is not None:
            pre, err = load_items(self.pre_path)
            if err:
                errors["pre"] = err
        if self.post_path is not None:
            post, err = load_items(self.post_path)
            if err:
                errors["post"] = err
        check, cerr = None, None
        try:
            check, cerr = check_receipt(
                self.row,
                values_of(pre) if pre is not None else None,
                values_of(post) if post is not None else None,
            )
        except ValueError as e:
            cerr = f"held content cannot be digested: {e}"
        self.app.call_from_thread(self._show, pre, post, errors, check, cerr)

    def _record(self, pre, post, check) -> None:
        """A recomputation with held content becomes the ledger tab's state for this
        receipt (banner, row badge, receipt panel, report) until cleared; recomputing
        it again replaces it."""
        if check is None or (pre is None and post is None):
            return
        pre_p = self.pre_path if pre is not None else None
        post_p = self.post_path if post is not None else None
        try:
            record = recompute_record(
                self.line,
                check,
                row=self.row,
                held=[*(pre or []), *(post or [])],
                pre=str(pre_p) if pre_p else None,
                post=str(post_p) if post_p else None,
            )
        except Exception:  # noqa: BLE001 - a check the report cannot hold is not recorded
            return
        self.tab.held_content(self.line, pre_p, post_p, check, record)

    def _recompute_now(self) -> None:
        check, err = check_receipt(self.row)
        self._show(self.pre_items, self.post_items, dict(self.errors), check, err)

    def _show(self, pre, post, errors, check, cerr) -> None:
        self.pre_items, self.post_items, self.check, self.cerr = pre, post, check, cerr
        self.errors.update(errors)
        self._record(pre, post, check)
        self._paint()

    def _paint(self) -> None:
        pre, post, check, cerr = self.pre_items, self.post_items, self.check, self.cerr
        t = Text(end="")
        for which, items, path in (("pre", pre, self.pre_path), ("post", post, self.post_path)):
            t.append(f" {which}: ", "bold")
            if self._pending(which):
                t.append("not loaded — Enter (or leave the field) loads it", "bold yellow")
            elif which in self.errors:
                t.append(clean(self.errors[which]), "bold red")
            elif items is not None:
                t.append(
                    f"{len(items)} item(s), {sum(i.size for i in items):,} B from "
                    f"{clean(Path(str(path)).name)}"
                )
            elif path is not None:
                t.append("loading…", "dim")
            else:
                t.append("none given", "dim")
            t.append("\n")
        t.append("\n")
        title = "recomputed" if (pre or post) else "self-consistency only"
        t.append_text(
            render_receipt(self.row, check, cerr, compact=True, bar_width=30, title=title)
        )
        if check is not None:
            t.append_text(content_report(check))
        self.query_one("#held-verdict", Static).update(t)
        self.query_one("#held-matches", Static).update(match_report(self.row, pre, post, check))
