"""The approval pages: Jinja2 templates, one stylesheet, no client JavaScript."""

from groundnote.surfaces.web.pages import PAGE_SIZE, add_pages, describe

__all__ = ["PAGE_SIZE", "add_pages", "describe"]
