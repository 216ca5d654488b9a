"""Canonical BCP-47 locale keys (seed 002 "Locales are keyed canonically").

Every store applies `canonical` on each write, read and list, so `targets/nb_NO` and a reader
asking for `nb-NO` address one overlay. The source text is keyed by the empty locale.
"""

from __future__ import annotations

from typing import Annotated

import langcodes
from pydantic import AfterValidator

__all__ = ["SOURCE", "Locale", "canonical", "is_canonical"]

SOURCE = ""  # the locale key of source text, beside each target's own


def canonical(tag: str) -> str:
    """The canonical spelling of a locale tag; the empty tag (source) stays empty.

    Raises ValueError for a tag that is not BCP-47, so it reads as a validation problem
    wherever a pydantic model applies it.
    """
    if tag == SOURCE:
        return SOURCE
    try:
        return str(langcodes.standardize_tag(tag.strip().replace("_", "-")))
    except ValueError as exc:  # langcodes' LanguageTagError is one
        raise ValueError(
            f"{tag!r} is not a BCP-47 locale tag such as en, de-DE or nb-NO ({exc})"
        ) from None


def is_canonical(tag: str) -> bool:
    """Whether a stored key is already canonical; a tag that does not parse is not."""
    try:
        return canonical(tag) == tag
    except ValueError:
        return False


Locale = Annotated[str, AfterValidator(canonical)]
