"""A thread worker's progress, as messages: the one callback the ledger tab's parts (the
index, the verification, a filter) hand to the core's `on_progress`."""

from __future__ import annotations

from collections.abc import Callable

from sealscope.viewer.verify_child import Cancelled
from textual.message import Message
from textual.message_pump import MessagePump
from textual.worker import Worker

__all__ = ["Progress"]


class Progress:
    """A worker's progress callback: posts `message(pct, done)` to `target` each `step`
    percent and at the end (`done`: bytes so far); raises Cancelled once the worker is
    cancelled."""

    def __init__(
        self,
        target: MessagePump,
        worker: Worker[None],
        step: float,
        message: Callable[[float, int], Message],
        start: float = -1.0,
    ) -> None:
        self.target, self.worker, self.step, self.message = target, worker, step, message
        self.start = self.last = start

    def restart(self) -> None:
        self.last = self.start

    def __call__(self, done: int, total: int) -> None:
        if self.worker.is_cancelled:
            raise Cancelled()
        pct = 100.0 * done / total if total else 100.0
        if pct - self.last >= self.step or done >= total:
            self.last = pct
            self.target.post_message(self.message(pct, done))
