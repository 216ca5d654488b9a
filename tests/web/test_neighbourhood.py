"""The neighbourhood picture's layout: whatever an entity holds, the boxes stay inside the
picture, never overlap, and every neighbour is either drawn or counted in a "+N more"."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from groundnote.structure.explore_models import (
    NEIGHBOURS_SHOWN,
    Neighbour,
    NeighbourGroup,
    Neighbourhood,
)
from groundnote.surfaces.web.neighbourhood import layout

KINDS = ("parent", "child", "rule", "source", "attachment", "entity")


def _group(kind: str, total: int, label: str) -> NeighbourGroup:
    shown = [
        Neighbour(
            ref=f"{kind}/{n}",
            label=f"{label} {n}",
            link_type="concerns",
            direction="in",
            proposed=n % 2 == 1,
        )
        for n in range(min(total, NEIGHBOURS_SHOWN))
    ]
    return NeighbourGroup(kind=kind, total=total, shown=shown)


@given(
    st.dictionaries(st.sampled_from(KINDS), st.integers(1, 5000)),
    st.text(max_size=300),
)
def test_every_neighbour_is_drawn_or_counted_and_no_box_overlaps(
    totals: dict[str, int], label: str
) -> None:
    if "parent" in totals:
        totals["parent"] = 1
    picture = layout(
        Neighbourhood(groups=[_group(k, n, label) for k, n in totals.items()]),
        label,
        "department",
        "#links",
    )
    more = {b.kind: int(b.label[1:].split()[0]) for b in picture.boxes if b.more}
    for kind, total in totals.items():
        drawn = sum(1 for b in picture.boxes if b.kind == kind and not b.more)
        assert drawn == min(total, NEIGHBOURS_SHOWN)
        assert drawn + more.get(kind, 0) == total
    assert picture.total == sum(totals.values())
    assert len(picture.boxes) <= len(KINDS) * (NEIGHBOURS_SHOWN + 1)
    everything = [*picture.boxes, picture.centre]
    for box in everything:
        assert box.x >= 0 and box.x + box.w <= picture.width
        assert box.y >= 0 and box.y + box.h <= picture.height
        assert len(box.label) <= 36
    for i, a in enumerate(everything):
        for b in everything[i + 1 :]:
            apart = a.x + a.w <= b.x or b.x + b.w <= a.x or a.y + a.h <= b.y or b.y + b.h <= a.y
            assert apart, (a, b)
    assert len(picture.edges) == len(picture.boxes)
