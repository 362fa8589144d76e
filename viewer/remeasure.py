"""Measuring a pane's new content afresh, whatever the frame did in between.

A detail pane (the row detail, a kind tab's row, a harn compaction, a seal diff's
entry) replaces its content on every cursor move. Textual (8.2) caches a widget's box
model under a count that a layout refresh raises only when no layout is pending for
that widget. So two updates before the widget's idle, with its container arranged in
between (a sibling's layout came first: a burst of cursor moves on a busy machine),
leave the second content measured at the first one's height: the pane scrolls past its
end and its scrollbar lies about what is below. `remeasure` drops that cache for the
widgets given and their descendants, so the next layout measures what they now hold.
"""

from __future__ import annotations

from textual.widget import Widget

__all__ = ["remeasure"]


def remeasure(*widgets: Widget) -> None:
    """Make the next layout measure `widgets` (and what they hold) from their content."""
    for widget in widgets:
        for w in widget.walk_children(with_self=True):
            cache = getattr(w, "_box_model_cache", None)
            if cache is not None:
                cache.clear()
