"""Progress on stderr for work that runs over a second, and only then.

The bar appears after ``delay`` seconds (a timer thread), so quick runs print
nothing; it is transient, and off entirely when disabled (machine formats,
``--quiet``, stderr not a terminal).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress


class DelayedProgress:
    def __init__(
        self,
        description: str,
        total: int | None,  # None: not known in advance (shown as N/?)
        console: Console | None,  # None when not enabled: Rich is never imported then
        *,
        enabled: bool,
        delay: float = 1.0,
    ) -> None:
        self.description, self.total, self.console = description, total, console
        self.enabled, self.delay = enabled, delay
        self.done = 0
        self._lock = threading.Lock()
        self._bar: Progress | None = None
        self._task = None
        self._timer: threading.Timer | None = None

    def __enter__(self) -> DelayedProgress:
        if self.enabled:
            self._timer = threading.Timer(self.delay, self._show)
            self._timer.daemon = True
            self._timer.start()
        return self

    def _show(self) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        with self._lock:
            if self._timer is None:  # already finished
                return
            self._bar = Progress(
                TextColumn("{task.description}", markup=False),  # file names are data
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=self.console,
                transient=True,
            )
            self._task = self._bar.add_task(self.description, total=self.total, completed=self.done)
            self._bar.start()

    def advance(self, label: str | None = None) -> None:
        with self._lock:
            self.done += 1
            if self._bar is not None:
                self._bar.update(
                    self._task,
                    completed=self.done,
                    description=f"{self.description} {label}" if label else self.description,
                )

    def __exit__(self, *exc) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._bar is not None:
                self._bar.stop()
                self._bar = None
