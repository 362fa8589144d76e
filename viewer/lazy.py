"""What the viewer loads when first used, not when it starts (`core.lazy`'s mechanism).

The first screen of a ledger needs the app and its first paint (`viewer.first_paint`);
everything else waits for the key, the file kind or the check that needs it: the tabs
(a ledger's loads while the first paint shows), the screens a key opens, the export,
the checks' core modules and the follower. Read a name as an attribute,
`lazy.SealTab(...)`: the first read imports its module (names are listed under
`TYPE_CHECKING` for the type checker and in `_LAZY` for the loader;
`tests/viewer/test_imports.py` holds them equal and counts each use as an import edge
of the module that reads it). Never `isinstance(x, lazy.Name)` on a path the
first screen takes: it loads the module to answer.

This module imports nothing of the viewer's at run time, and no Textual: the verify
child (`verify_child`, a plain Python process) reads the follower through it too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sealscope.core import lazy as _lazy

if TYPE_CHECKING:  # for the type checker; at run time each name loads on first read
    from sealscope.core import compaction_series, export, pins, witness
    from sealscope.core.checks import artefact as artefact_check
    from sealscope.core.checks import call_record, ledger_rows
    from sealscope.core.follow import Follower
    from sealscope.core.profiles import once as once_profile
    from sealscope.core.profiles.detect import detect as detect_profile
    from sealscope.core.receipt import verify_receipt
    from sealscope.viewer import case_app
    from sealscope.viewer.aat_tab import AatTab
    from sealscope.viewer.compaction_chart import CompactionChart
    from sealscope.viewer.export_action import ExportScreen
    from sealscope.viewer.fleet_tab import FleetTab
    from sealscope.viewer.harn_tab import HarnPane
    from sealscope.viewer.held_screen import HeldContentScreen
    from sealscope.viewer.key_help import KeyHelpScreen
    from sealscope.viewer.kind_tab import KindTab
    from sealscope.viewer.ledger_tab import LedgerTab
    from sealscope.viewer.lookup_screen import LookupScreen, receipt_tabs
    from sealscope.viewer.marks import find_marks
    from sealscope.viewer.pin_screen import PinScreen
    from sealscope.viewer.prompt import PathSuggester, PromptScreen, pasted_path
    from sealscope.viewer.readme_screen import SamplesReadmeScreen
    from sealscope.viewer.row_check_panel import row_badge
    from sealscope.viewer.seal_tab import SealTab, find_seal_tab
    from sealscope.viewer.unit_tab import UnitTab

__all__ = [
    "call_record",
    "compaction_series",
    "export",
    "pins",
    "witness",
    "artefact_check",
    "ledger_rows",
    "receipt_tabs",
    "row_badge",
    "find_marks",
    "Follower",
    "verify_receipt",
    "CompactionChart",
    "ExportScreen",
    "FleetTab",
    "HarnPane",
    "HeldContentScreen",
    "KeyHelpScreen",
    "LedgerTab",
    "LookupScreen",
    "PinScreen",
    "PathSuggester",
    "PromptScreen",
    "pasted_path",
    "SamplesReadmeScreen",
    "SealTab",
    "find_seal_tab",
]
__all__ += ["KindTab", "UnitTab", "AatTab"]  # the tabs of the other evidence kinds
__all__ += ["case_app"]  # a case open (`--case`)
__all__ += ["detect_profile", "once_profile"]  # the long tail (KINDS-3.md)

_LAZY = {
    # core: the checks, the report, the follower
    "export": "sealscope.core.export",
    "call_record": "sealscope.core.checks.call_record",
    "compaction_series": "sealscope.core.compaction_series",
    "pins": "sealscope.core.pins",
    "witness": "sealscope.core.witness",
    "ledger_rows": "sealscope.core.checks.ledger_rows",
    "artefact_check": "sealscope.core.checks.artefact",
    "receipt_tabs": "sealscope.viewer.lookup_screen:receipt_tabs",
    "row_badge": "sealscope.viewer.row_check_panel:row_badge",
    "find_marks": "sealscope.viewer.marks:find_marks",
    "Follower": "sealscope.core.follow:Follower",
    # the long tail's profiles: what a path no kind claims is, a once ledger's rows
    "detect_profile": "sealscope.core.profiles.detect:detect",
    "once_profile": "sealscope.core.profiles.once",
    "verify_receipt": "sealscope.core.receipt:verify_receipt",
    # the tabs (a ledger's too: the first paint draws before its module loads)
    "LedgerTab": "sealscope.viewer.ledger_tab:LedgerTab",
    "FleetTab": "sealscope.viewer.fleet_tab:FleetTab",
    "HarnPane": "sealscope.viewer.harn_tab:HarnPane",
    "SealTab": "sealscope.viewer.seal_tab:SealTab",
    "find_seal_tab": "sealscope.viewer.seal_tab:find_seal_tab",
    "KindTab": "sealscope.viewer.kind_tab:KindTab",
    "UnitTab": "sealscope.viewer.unit_tab:UnitTab",
    "AatTab": "sealscope.viewer.aat_tab:AatTab",
    # screens a key opens
    "CompactionChart": "sealscope.viewer.compaction_chart:CompactionChart",
    "ExportScreen": "sealscope.viewer.export_action:ExportScreen",
    "HeldContentScreen": "sealscope.viewer.held_screen:HeldContentScreen",
    "KeyHelpScreen": "sealscope.viewer.key_help:KeyHelpScreen",
    "LookupScreen": "sealscope.viewer.lookup_screen:LookupScreen",
    "PinScreen": "sealscope.viewer.pin_screen:PinScreen",
    "PathSuggester": "sealscope.viewer.prompt:PathSuggester",
    "PromptScreen": "sealscope.viewer.prompt:PromptScreen",
    "pasted_path": "sealscope.viewer.prompt:pasted_path",
    "SamplesReadmeScreen": "sealscope.viewer.readme_screen:SamplesReadmeScreen",
    # a case open (`--case`): what the app does with it
    "case_app": "sealscope.viewer.case_app",
}

if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy.exports(__name__, _LAZY)
