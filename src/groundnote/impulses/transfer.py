"""One organisation's impulses as an export carries them (the engine is store/transfer.py).

Every table of the subsystem is truth and exported, filtered to the organisation: concepts
(with their load and credit counters), edges with weights and counts, usage, sequences with
their members, and impulses with their expiry (an expired impulse the sweep has not pruned yet
is exported as it is). An import writes them under the target organisation's name. Ids are
keys of instance.db, shared by every organisation of the home, so an import into the home it
came from (under another organisation) is refused at the first id it already holds.
"""

from __future__ import annotations

from groundnote.store.transfer import Table, Transfer

__all__ = ["EMPTY_ORG", "IMPULSES_TRANSFER"]

EMPTY_ORG = "Import an organisation's impulses into an organisation that has none yet."

_ORG = "org_id = :owner"

IMPULSES_TRANSFER = Transfer(
    format="groundnote-impulses",
    version=1,
    owner_key="org",
    tables=(
        Table("concept", order="created_at, id", where=_ORG, owner_column="org_id"),
        Table("concept_edge", order="created_at, id", where=_ORG, owner_column="org_id"),
        Table("concept_usage", order="at, id", where=_ORG, owner_column="org_id"),
        Table("concept_sequence", order="created_at, id", where=_ORG, owner_column="org_id"),
        Table(
            "concept_sequence_member",
            order="sequence_id, position",
            where="sequence_id IN (SELECT s.id FROM concept_sequence s WHERE s.org_id = :owner)",
        ),
        Table("impulse", order="created_at, id", where=_ORG, owner_column="org_id"),
    ),
)
