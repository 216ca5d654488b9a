"""What every context capability shares: the project directory argument and its checks."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from groundnote.context.projectdb import NonCanonicalLocale, ProjectDB
from groundnote.context.recipe import RECIPE_FILE
from groundnote.domain.errors import NotFound, ValidationFailed

__all__ = ["AS_OF", "PROJECT_PATH", "locale_warnings", "populated", "project_dir"]

AS_OF = "Counts are as of the last extraction (`groundnote context up`), not of the working tree."
PROJECT_PATH = Field(
    ".", description=f"The content project's directory, the one holding {RECIPE_FILE}."
)


def project_dir(path: str) -> Path:
    folder = Path(path).expanduser().resolve()
    if not (folder / RECIPE_FILE).is_file():
        raise ValidationFailed(
            f"{folder} is not a content project: it has no {RECIPE_FILE}.",
            remedy=f"Pass the directory that holds {RECIPE_FILE}, or create the recipe there.",
            key="path",
        )
    return folder


def locale_warnings(report: list[NonCanonicalLocale]) -> list[str]:
    """The non-canonical locale report, once, with the rebuild named."""
    if not report:
        return []
    spellings = ", ".join(
        f"{r.subsystem}: {r.locale!r}" + (f" (canonical {r.canonical!r})" if r.canonical else "")
        for r in report
    )
    return [
        f"Rows keyed by a non-canonical locale that no lookup finds: {spellings}. Rebuild: run "
        "`groundnote context commit`, delete .groundnote/work/store.db, then "
        "`groundnote context up`."
    ]


def populated(folder: Path) -> ProjectDB:
    """The project's store when it holds blocks; else the error that says to run `up`."""
    store = ProjectDB.peek(folder)
    if store is None or store.store_missing():
        if store is not None:
            store.close()
        raise NotFound(
            "The project store holds no blocks yet.",
            remedy=f"Run `groundnote context up --path {folder}` first, then ask again.",
        )
    return store
