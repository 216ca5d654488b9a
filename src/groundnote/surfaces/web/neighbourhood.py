"""Where the entity page draws each neighbour: the entity in the middle, its groups of
neighbours in two columns beside it, one line from the entity to each.

Only geometry and shortened labels are made here; the template writes the SVG, so every label
goes through the same autoescaping as the rest of the page. A group draws at most
NEIGHBOURS_SHOWN boxes and one "+N more" box for the rest, so 500 links draw as a few dozen
boxes: the picture stays readable and its size bounded, whatever the entity holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from groundnote.structure.explore_models import Neighbourhood

__all__ = ["Box", "Edge", "Heading", "Picture", "layout"]

WIDTH = 820
_BOX_W = 250
_BOX_H = 26
_GAP = 6
_HEAD = 22
_GROUP_GAP = 14
_MARGIN = 16
_LABEL = 36  # characters a box shows; the full text is its <title>
# Which column each kind goes to, and in what order from the top.
_LEFT = ("parent", "rule", "attachment")
_RIGHT = ("child", "source", "entity")
_HEADINGS = {
    "parent": "parent",
    "child": "children",
    "rule": "rules",
    "source": "sources",
    "attachment": "attachments",
    "entity": "linked entities",
}


@dataclass(frozen=True)
class Box:
    x: int
    y: int
    w: int
    h: int
    label: str
    title: str
    kind: str
    href: str | None
    proposed: bool
    more: bool = False


@dataclass(frozen=True)
class Edge:
    x1: int
    y1: int
    x2: int
    y2: int
    proposed: bool
    label: str


@dataclass(frozen=True)
class Heading:
    x: int
    y: int
    text: str


@dataclass(frozen=True)
class Picture:
    width: int
    height: int
    centre: Box
    boxes: list[Box]
    edges: list[Edge]
    headings: list[Heading]
    drawn: int
    total: int


def _short(text: str) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= _LABEL else one_line[: _LABEL - 1] + "…"


def _column(
    picture: Neighbourhood, kinds: tuple[str, ...], x: int, more_href: str
) -> tuple[list[Box], list[Heading], int]:
    boxes: list[Box] = []
    headings: list[Heading] = []
    y = _MARGIN
    for group in (g for kind in kinds for g in picture.groups if g.kind == kind):
        headings.append(Heading(x=x, y=y + 14, text=f"{_HEADINGS[group.kind]} ({group.total})"))
        y += _HEAD
        for n in group.shown:
            label = (
                f"{n.link_type}: {n.label}" if group.kind not in ("parent", "child") else n.label
            )
            href = f"/approval/entities/{n.entity_id}" if n.entity_id else None
            boxes.append(
                Box(x, y, _BOX_W, _BOX_H, _short(label), label, group.kind, href, n.proposed)
            )
            y += _BOX_H + _GAP
        hidden = group.total - len(group.shown)
        if hidden > 0:
            boxes.append(
                Box(
                    x,
                    y,
                    _BOX_W,
                    _BOX_H,
                    f"+{hidden} more",
                    f"{hidden} more {_HEADINGS[group.kind]}",
                    group.kind,
                    more_href,
                    proposed=False,
                    more=True,
                )
            )
            y += _BOX_H + _GAP
        y += _GROUP_GAP
    return boxes, headings, y


def layout(picture: Neighbourhood, name: str, entity_type: str, more_href: str) -> Picture:
    left, left_heads, left_h = _column(picture, _LEFT, _MARGIN, more_href)
    right, right_heads, right_h = _column(picture, _RIGHT, WIDTH - _MARGIN - _BOX_W, more_href)
    height = max(left_h, right_h, 3 * _BOX_H + 2 * _MARGIN)
    centre_w = WIDTH - 2 * (_MARGIN + _BOX_W) - 2 * 40
    centre = Box(
        x=(WIDTH - centre_w) // 2,
        y=height // 2 - _BOX_H,
        w=centre_w,
        h=2 * _BOX_H,
        label=_short(name),
        title=f"{entity_type} {name}",
        kind="centre",
        href=None,
        proposed=False,
    )
    mid = centre.y + centre.h // 2
    edges = [Edge(centre.x, mid, b.x + b.w, b.y + b.h // 2, b.proposed, b.title) for b in left] + [
        Edge(centre.x + centre.w, mid, b.x, b.y + b.h // 2, b.proposed, b.title) for b in right
    ]
    boxes = left + right
    return Picture(
        width=WIDTH,
        height=height,
        centre=centre,
        boxes=boxes,
        edges=edges,
        headings=left_heads + right_heads,
        drawn=sum(1 for b in boxes if not b.more),
        total=sum(g.total for g in picture.groups),
    )
