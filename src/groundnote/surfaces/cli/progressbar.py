"""One way the command line draws long work: a bar per phase on standard error."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

__all__ = ["PhaseBars"]


class PhaseBars:
    """A `groundnote.domain.progress.Progress` callback; the first report of a phase adds its
    bar, and the first report at all starts the display (and its refresh thread), so work that
    reports nothing costs nothing. Standard error keeps `--output json` clean on standard
    output."""

    def __init__(self) -> None:
        self._bars = Progress(
            TextColumn("{task.description:>10}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
        )
        self._tasks: dict[str, TaskID] = {}

    def __call__(self, phase: str, done: int, total: int) -> None:
        if not self._tasks:
            self._bars.start()
        if phase not in self._tasks:
            self._tasks[phase] = self._bars.add_task(phase, total=total)
        self._bars.update(self._tasks[phase], completed=done, total=total)

    def __enter__(self) -> PhaseBars:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._tasks:
            self._bars.stop()
