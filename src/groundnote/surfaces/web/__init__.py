"""The approval pages: HTML for persons, rendered from the approval channel's capabilities."""

from groundnote.structure import PAGE_SIZE
from groundnote.surfaces.web.pages import add_pages

__all__ = ["PAGE_SIZE", "add_pages"]
