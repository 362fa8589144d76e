"""UTC second stamps: `YYYY-MM-DDTHH:MM:SSZ`, the only time format the formats use."""

from __future__ import annotations

from datetime import datetime, timezone


def utc_stamp() -> str:
    """Now, in UTC, to the second, with a literal `Z`."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
