"""Names loaded on first use: the one mechanism behind every deferred import in sealscope.

A module that offers names it does not import up front gives a table, name →
"package.module:attribute" (or "package.module" for a module itself), to `exports`, and
binds what it returns as its module `__getattr__` and `__dir__` (PEP 562, the idiom of
`textual.widgets`). The first read of such a name imports its module and keeps the value
in the module's globals, so later reads are plain lookups. The same names are imported
under `if TYPE_CHECKING:` for the type checker; `__getattr__` is bound only when not
type checking, so a misspelt name is still a type error. A table is checked against
those imports by the tests.

Used where an import costs more than the first use is worth waiting for: the
`harn` and `continuity` packages' re-exports, and the viewer's screens and tabs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["exports", "load", "table"]


def load(target: str) -> Any:
    """The value `target` names, imported now: "package.module:attribute" is an
    attribute of a module, "package.module" the module itself."""
    module, sep, attribute = target.partition(":")
    if sep and not attribute:
        raise ValueError(f"not a 'module:attribute' target: {target!r}")
    found = import_module(module)
    return getattr(found, attribute) if attribute else found


def table(by_module: Mapping[str, Iterable[str]]) -> dict[str, str]:
    """A table for `exports` from names listed by the module that defines them (each
    name is the same attribute of its module)."""
    return {name: f"{module}:{name}" for module, names in by_module.items() for name in names}


def exports(
    module: str, where: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for the module named `module`, offering each name of
    `where` (name → a `load` target), loaded on its first read."""

    def __getattr__(name: str) -> Any:
        target = where.get(name)
        if target is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = load(target)
        setattr(sys.modules[module], name, value)  # later reads do not come here
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[module]), *where})

    return __getattr__, __dir__
