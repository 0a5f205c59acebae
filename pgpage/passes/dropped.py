"""`rows --dropped`: the values a dropped column still holds in the rows written before the drop (issue 39, item 6).

ALTER TABLE ... DROP COLUMN leaves the column's bytes in every row version (the rows are not rewritten) and its
pg_attribute row, renamed ``........pg.dropped.N........`` with atttypid 0, still says its length and alignment:
enough to walk over it, not to print it. The type it had is in the pg_attribute row's version from before the
drop, a dead tuple that stays on disk until the page is pruned or vacuumed: read here from every version of
pg_attribute (``TableRows`` with ``--all`` on the catalog itself). The column is named ``dropped_N`` as
pg_dirtyread names it and printed as that type when a version says it, else as the hex of its bytes.
"""
from __future__ import annotations

from dataclasses import replace

from pgpage.findings import INFO, Finding

UNKNOWN_TYPE = 0      # atttypid of a dropped column: values.ValueFormatter prints it as hex (Undecoded)


def dropped_columns(relation, attrs: list, label: str, findings: list[Finding], versions) -> list[tuple[int, object]]:
    """(attribute index, the attribute to print it as) for each dropped column of ``relation`` (``attrs``: its
    attributes, attnum order), with a finding that says which type it is printed as and why. ``versions(catalog,
    columns)``: every version of a relation's rows, as `rows --all` records (``TableRows.text_records``)."""
    dropped = [i for i, a in enumerate(attrs) if a.attisdropped]
    if not dropped:
        return []
    old = _types_before_drop(relation, {i + 1 for i in dropped}, versions)
    out = []
    for i in dropped:
        a, typid = attrs[i], old.get(i + 1)
        name = f"dropped_{i + 1}"
        if typid is not None:
            t = relation.database.types.get(typid)
            message = (f"dropped column {i + 1} is printed as {name}, of type {t.name if t else typid}"
                       " (pg_attribute's version from before the drop)")
        else:
            message = (f"dropped column {i + 1} is printed as {name}, the hex of its bytes (a varlena's after its header;"
                       f" attlen {a.attlen}, attalign"
                       f" '{a.attalign}'): no pg_attribute version from before the drop is left on disk to say its"
                       " type")
        findings.append(Finding("rows.dropped.typed" if typid is not None else "rows.dropped.untyped", message,
                                INFO, relation=label, attnum=i + 1))
        out.append((i, replace(a, name=name, typid=typid if typid is not None else UNKNOWN_TYPE, attisdropped=False)))
    return out


def _types_before_drop(relation, attnums: set[int], versions) -> dict[int, int]:
    """{attnum: atttypid} from the versions of ``relation``'s pg_attribute rows that are not dropped: the rows'
    last version before the drop (several: the newest xmin)."""
    catalog = next((r for r in relation.database.relations() if r.name == "pg_attribute"
                    and r.qualified_name in ("pg_catalog.pg_attribute", "pg_attribute")), None)
    if catalog is None:
        return {}
    cols = ["attrelid", "attnum", "atttypid", "attisdropped"]
    found: dict[int, tuple[int, int]] = {}
    try:
        for r in versions(catalog, cols):
            v = r["values"]
            if v["attrelid"] != str(relation.oid) or v["attisdropped"] != "f" or v["atttypid"] in (None, "0"):
                continue
            attnum = int(v["attnum"])
            if attnum in attnums and r["xmin"] >= found.get(attnum, (-1, 0))[0]:
                found[attnum] = (r["xmin"], int(v["atttypid"]))
    except (ValueError, TypeError):     # a damaged catalog: the types stay unknown
        return {}
    return {k: typid for k, (_, typid) in found.items()}
