"""The run the viewer's open tabs make: one `core.checks.CheckContext`, the one `check`
gives its paths (`checks.run_context`), so a tab judges what `check` judges.

The tabs open in one app are one run: its paths are those the app was given, every
tab opened since, and the stored verdicts a fleet tab found beside the ledger it
opened (`SealscopeApp.hand_over`), with the app's `--artefacts DIR`. A stored
continuity verdict among them joins the `continuity_verify` rows of every ledger
(KINDS.md §5.3); a tab whose file is checked with the context (a ledger's row checks,
a kind tab's check) asks for it here as it starts, and is checked again when a tab
opened later changes it.
"""

from __future__ import annotations

from typing import Any

from sealscope.core.checks.result import CheckContext

__all__ = ["run_ctx_of"]


def run_ctx_of(widget: Any) -> CheckContext | None:
    """The run context of the app `widget` is in (None in an app that keeps none, or
    a widget no longer in one)."""
    try:
        app = widget.app
    except Exception:  # noqa: BLE001 - not in an app (any more): no run
        return None
    get = getattr(app, "run_ctx", None)
    return get() if callable(get) else None
