"""Output of ``pgpage verify``: newline-delimited JSON records, or a compact summary for people.

Both sinks take records as the audit yields them and keep only counters and a few examples per
code, so memory stays flat however many findings a damaged cluster produces.

JSON (``--json``): one record per line, every record with ``type`` and ``schema``:

* ``start``: what is verified (``target``, ``scope`` cluster/database/relation/file, ``major``,
  ``data_checksums``, ``state``, pg_control's ``next_xid``/``oldest_xid``, ``fail_on``).
* ``finding``: ``code``, ``message``, ``severity`` (error, warning, info), ``fails`` (whether it
  fails the audit under ``--fail-on``), and where: ``database``, ``relation``, ``fork``,
  ``block`` (PostgreSQL's global block number), ``item`` (line pointer number), ``attnum`` (a tuple's attribute, 1-based); ``expected`` and
  ``actual`` when the rule compares values.
* ``relation``: one per relation (or file) verified: ``relation``, ``oid``, ``kind``, ``am``,
  ``forks`` ({fork: blocks}), ``findings`` (its count).
* ``summary`` (last line): ``relations``, ``forks``, ``blocks``, ``bytes``, ``findings``,
  ``failing``, ``by_code`` ({code: count}), ``seconds``, ``exit_status``.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from typing import TYPE_CHECKING

from pgpage.render.output import _jsonable, console

if TYPE_CHECKING:      # rich is imported by the text output only (JSON lines need none of it)
    from rich.text import Text

EXAMPLES = 3


class _Sink:
    def __init__(self):
        self.count = 0
        self.failing = 0
        self.by_code: Counter = Counter()
        self.severity: dict[str, str] = {}
        self.failing_codes: set[str] = set()
        self.examples: dict[str, list[dict]] = {}
        self.by_severity: Counter = Counter()

    def _tally(self, rec: dict) -> None:
        code = rec["code"]
        self.count += 1
        self.by_code[code] += 1
        sev = rec.get("severity", "error")
        self.by_severity[sev] += 1
        order = {"error": 0, "warning": 1, "info": 2}
        if order.get(sev, 3) < order.get(self.severity.get(code, "info"), 3) or code not in self.severity:
            self.severity[code] = sev
        if rec.get("fails"):
            self.failing += 1
            self.failing_codes.add(code)
        ex = self.examples.setdefault(code, [])
        if len(ex) < EXAMPLES:
            ex.append(rec)


class JsonSink(_Sink):
    """Every record as one JSON line, flushed as it goes."""

    def __init__(self, schema: str):
        super().__init__()
        self.schema = schema

    def _write(self, rec: dict) -> None:
        out = {"type": rec["type"], "schema": self.schema}
        out.update({k: v for k, v in rec.items() if k not in out and v is not None})
        sys.stdout.write(json.dumps(out, separators=(",", ":"), default=_jsonable) + "\n")

    def start(self, rec: dict) -> None:
        self._write({k: v for k, v in rec.items() if k != "blocks_planned"})

    def record(self, rec: dict) -> None:
        if rec["type"] == "finding":
            self._tally(rec)
        self._write(rec)
        sys.stdout.flush()

    def finish(self, rec: dict) -> None:
        self._write(rec)


class TextSink(_Sink):
    """A header, every finding as it comes when verbose, then a summary by code."""

    def __init__(self, verbose: bool):
        super().__init__()
        self.verbose = verbose
        self.out = console()
        self.with_findings = 0

    def start(self, rec: dict) -> None:
        from rich.text import Text
        out = self.out
        what = rec.get("relation") or rec.get("file") or rec.get("data_directory") or rec["target"]
        head = Text.assemble(("verify ", "bold"), (str(what), "bold cyan"))
        if rec.get("database") and rec.get("scope") in ("relation", "database", "file"):
            head.append(f"  database {rec['database']}")
        out.print(head)
        facts = []
        if rec.get("major"):
            facts.append(f"PostgreSQL {rec['major']}")
        if "data_checksums" in rec:
            facts.append("checksums " + (rec.get("checksums_rule")
                                         or {True: "on", False: "off", None: "unknown"}[rec["data_checksums"]]))
        if rec.get("state"):
            facts.append(f"state {rec['state']}")
        if rec.get("next_xid") is not None:
            facts.append(f"next xid {rec['next_xid']}  oldest xid {rec['oldest_xid']}")
        if facts:
            out.print(Text("  " + "  ".join(facts), "dim"))

    def record(self, rec: dict) -> None:
        if rec["type"] == "relation":
            if rec.get("findings"):
                self.with_findings += 1
            return
        if rec["type"] != "finding":
            return
        self._tally(rec)
        if self.verbose:
            self.out.print(finding_line(rec))


    def finish(self, rec: dict) -> None:
        from rich.text import Text

        from pgpage.render.page import SEVERITY_STYLE
        from pgpage.render.scan import human_bytes
        out = self.out
        if self.verbose and self.count:
            out.print()
        out.print(f"verified {rec['relations']:,} relation{'s' if rec['relations'] != 1 else ''},"
                  f" {rec['forks']:,} fork{'s' if rec['forks'] != 1 else ''}, {rec['blocks']:,} blocks"
                  f" ({human_bytes(rec['bytes'])}) in {rec['seconds']:.2f} s")
        if self.count:
            kinds = ", ".join(f"{self.by_severity[s]:,} {name}{'s' if self.by_severity[s] != 1 else ''}"
                              for s, name in (("error", "error"), ("warning", "warning"), ("info", "note"))
                              if self.by_severity[s])
            out.print(Text.assemble((f"findings: {self.count:,}", "bold"),
                                    f" ({kinds}; {self.failing:,} fail the audit)"))
            order = {"error": 0, "warning": 1, "info": 2}
            for code, n in sorted(self.by_code.items(), key=lambda kv: (order.get(self.severity[kv[0]], 3), -kv[1],
                                                                         kv[0])):
                sev = self.severity[code]
                mark = "FAIL" if code in self.failing_codes else "    "
                out.print(Text.assemble((f"  {mark} ", "bold red" if mark.strip() else ""),
                                        (f"{sev:<7} ", SEVERITY_STYLE.get(sev, "")), (code, "bold"), f"  x{n:,}"))
                if not self.verbose:
                    for ex in self.examples[code]:
                        out.print(Text(f"         {where(ex)}: {ex['message']}", "dim"), hang=11)
                    if n > len(self.examples[code]):
                        out.print(Text(f"         ... and {n - len(self.examples[code]):,} more", "dim"))
        result = Text("result: ", "bold")
        if rec["exit_status"]:
            result.append(f"FAILED ({self.failing:,} failing finding{'s' if self.failing != 1 else ''})", "bold red")
        else:
            result.append("clean" if not self.count else "passed (no finding fails the audit)", "bold green")
        out.print(result)


def where(rec: dict) -> str:
    parts = []
    if rec.get("database") and rec.get("relation"):
        parts.append(f"{rec['database']}.{rec['relation']}")
    elif rec.get("relation"):
        parts.append(rec["relation"])
    if rec.get("fork") and rec["fork"] != "main":
        parts.append(rec["fork"])
    if rec.get("block") is not None:
        parts.append(f"block {rec['block']}")
    if rec.get("item") is not None:
        parts.append(f"item {rec['item']}")
    if rec.get("attnum") is not None:
        parts.append(f"attribute {rec['attnum']}")
    return " ".join(parts) or "cluster"


def finding_line(rec: dict) -> Text:
    """One finding on one line: FAIL when it fails the audit, severity, code, where, message."""
    from rich.text import Text

    from pgpage.render.page import SEVERITY_STYLE
    sev = rec.get("severity", "error")
    return Text.assemble(("FAIL " if rec.get("fails") else "     ", "bold red"),
                         (f"{sev:<7} ", SEVERITY_STYLE.get(sev, "")),
                         (rec["code"], "bold"), "  ", where(rec), ": ", rec["message"])
