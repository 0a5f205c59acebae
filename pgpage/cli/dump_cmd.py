"""pgpage dump: a database as a plain SQL script psql restores, from the files of a cluster that will not start."""
from __future__ import annotations

import sys

from pgpage.cli.common import exit_status, refuse_output_inside
from pgpage.findings import ExitCode, PgpageError


def dump_command(*, pgdata, db=None, output="-", schema_only=False, data_only=False, table=None) -> int:
    from pgpage.passes.dump import DumpOptions, open_dump, source_facts
    from pgpage.render.dump import summary, write_script

    if schema_only and data_only:
        raise PgpageError("give only one of --schema-only and --data-only", ExitCode.USAGE)
    if output != "-":
        refuse_output_inside(output, pgdata, "--output")
    dump = open_dump(pgdata, db, DumpOptions(schema_only, data_only, table))
    if output == "-":
        sys.stdout.flush()
        write_script(sys.stdout.buffer, dump, source_facts(dump.cluster))
    else:
        with open(output, "wb") as out:
            write_script(out, dump, source_facts(dump.cluster))
    sys.stderr.write(summary(dump.result, dump.db.name))
    return exit_status(dump.result.findings)
