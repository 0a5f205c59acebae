"""pgpage dump: a database as a plain SQL script psql restores, from the files of a cluster that will not start."""
from __future__ import annotations

import sys

from pgpage.cli.common import exit_status, refuse_output_inside
from pgpage.findings import ExitCode, PgpageError


def dump_command(*, pgdata, db=None, output, schema_only=False, data_only=False, table=None) -> int:
    from pgpage.passes.dump import Dump, DumpOptions, source_facts
    from pgpage.render.dump import summary
    from pgpage.storage.datadir import open_data_directory

    if schema_only and data_only:
        raise PgpageError("give only one of --schema-only and --data-only", ExitCode.USAGE)
    if output != "-":
        refuse_output_inside(output, pgdata, "--output")
    cluster = open_data_directory(pgdata)
    database = cluster.database(db)
    dump = Dump(cluster, database, DumpOptions(schema_only, data_only, table))
    if output == "-":
        sys.stdout.flush()
        result = dump.write(sys.stdout.buffer, source_facts(cluster))
        sys.stdout.buffer.flush()
    else:
        with open(output, "wb") as out:
            result = dump.write(out, source_facts(cluster))
    sys.stderr.write(summary(result, database.name))
    return exit_status(result.findings)
