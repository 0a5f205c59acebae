"""The README's example outputs are what the commands print.

An example is a fenced block of README.md whose first line is ``$ pgpage ...``: the command is run from the
repository's root with COLUMNS=100 (as a reader's pipe or a 100-column terminal shows it) and the rest of the
block must equal what it writes (standard output, then standard error), line for line, where a line ``...`` alone stands for one or more lines
cut. Only clock readings are masked: elapsed seconds, and the statistics file's modification time (the time git
wrote it in this clone). A block whose data is not bundled must be named in NOT_BUNDLED with where it comes from. A
data directory the repository holds packed (``DIR.tar.xz`` holding ``DIR``'s last name: make_walrows.py) is
unpacked into a temporary directory and the command run on it there.

``python tests/test_readme_examples.py --update`` writes the commands' outputs into README.md, keeping the cuts
the README makes (a ``...`` line stays where the lines it stood for are), and shows what changed.
"""
from __future__ import annotations

import difflib
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
CUT = "..."
COLUMNS = "100"

# examples whose data is not in the repository, and where their output comes from
NOT_BUNDLED = {
    "pgpage diff before after": "a four-database cluster tests/passes/test_diff_live.py makes on a live server",
}

CLOCKS = [(re.compile(r"\bin \d+\.\d+ s\b"), "in <seconds> s"),
          (re.compile(r"\bfile time \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\b"), "file time <mtime>")]


def masked(line: str) -> str:
    for pattern, mask in CLOCKS:
        line = pattern.sub(mask, line)
    return line


def examples(text: str) -> list[tuple[int, str, list[str]]]:
    """(line number of the block's opening fence, the command, the lines shown) of each example block."""
    out, lines, n = [], text.split("\n"), 0
    while n < len(lines):
        if lines[n].startswith("```"):
            end = next(i for i in range(n + 1, len(lines)) if lines[i].startswith("```"))
            body = lines[n + 1:end]
            if body and body[0].startswith("$ pgpage "):
                out.append((n, body[0][2:], body[1:]))
            n = end
        n += 1
    return out


def packed(path: str) -> Path | None:
    """The archive ``path.tar.xz`` of a data directory the repository holds packed, when ``path`` itself is not
    there."""
    archive = REPO / f"{path}.tar.xz"
    return archive if not (REPO / path).exists() and archive.is_file() else None


def bundled(command: str) -> bool:
    """Whether the command reads only what the repository holds: its paths (the arguments with a slash, but for
    an -o output, which is written) all exist, or are packed."""
    args = shlex.split(command)[2:]
    paths = [a for i, a in enumerate(args) if "/" in a and not a.startswith("-") and args[i - 1] not in ("-o", "--output")]
    return bool(paths) and all((REPO / p).exists() or packed(p) for p in paths)


def run(command: str, out_dir: Path) -> list[str]:
    """The lines the command writes, run from the repository's root: its standard output, then its standard error
    (which it writes last: `rows`' count of the versions; progress is drawn on a terminal only). An -o file goes to
    ``out_dir``."""
    args = shlex.split(command)
    for i, a in enumerate(args[:-1]):
        if a in ("-o", "--output"):
            args[i + 1] = str(out_dir / Path(args[i + 1]).name)
    for i, a in enumerate(args):
        archive = packed(a) if "/" in a and not a.startswith("-") else None
        if archive is not None:
            import tarfile
            with tarfile.open(archive) as tf:
                tf.extractall(out_dir / f"packed{i}", filter="data")
            args[i] = str(out_dir / f"packed{i}" / Path(a).name)
    env = {**os.environ, "COLUMNS": COLUMNS}
    r = subprocess.run([sys.executable, "-m", "pgpage", *args[1:]], cwd=REPO, env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode in (0, 1), (command, r.returncode, r.stderr)
    return r.stdout.splitlines() + r.stderr.splitlines()


def matches(shown: list[str], printed: list[str]) -> bool:
    """Whether ``shown`` is ``printed`` with runs of one or more lines replaced by a ``...`` line each."""
    shown, printed = [masked(x) for x in shown], [masked(x) for x in printed]

    def at(i: int, j: int) -> bool:
        if i == len(shown):
            return j == len(printed)
        if shown[i] == CUT:
            return any(at(i + 1, k) for k in range(j + 1, len(printed) + 1))
        return j < len(printed) and shown[i] == printed[j] and at(i + 1, j + 1)
    return at(0, 0)


def regenerated(shown: list[str], printed: list[str]) -> list[str]:
    """``printed`` with the README's cuts kept: what the old block showed and is still printed stays (its clock
    readings too), a ``...`` stays over the lines it stood for, a line shown that changed becomes what is printed
    now."""
    out = []
    ops = difflib.SequenceMatcher(None, [masked(x) for x in shown], [masked(x) for x in printed], autojunk=False)
    for tag, i1, i2, j1, j2 in ops.get_opcodes():
        if tag == "equal":
            out += shown[i1:i2]
        elif CUT not in shown[i1:i2]:
            out += printed[j1:j2]
        elif j2 > j1:
            out.append(CUT)
    return out


EXAMPLES = examples(README.read_text())


def test_every_example_is_checked_or_named():
    assert EXAMPLES, "README.md has no example"
    for _, command, _ in EXAMPLES:
        assert bundled(command) or command in NOT_BUNDLED, f"{command}: its data is not bundled"


@pytest.mark.parametrize("command,shown", [(c, s) for _, c, s in EXAMPLES if bundled(c)],
                         ids=[c for _, c, _ in EXAMPLES if bundled(c)])
def test_example_is_the_commands_output(command, shown, tmp_path):
    assert CUT not in shown or shown.count(CUT) < len(shown), "a block of cuts only"
    printed = run(command, tmp_path)
    assert matches(shown, printed), "\n".join(difflib.unified_diff(shown, printed, "README.md", command,
                                                                     lineterm=""))


def update() -> None:
    """Write the commands' outputs into README.md, keeping its cuts; print what changed."""
    import tempfile
    lines = README.read_text().split("\n")
    with tempfile.TemporaryDirectory() as tmp:
        for fence, command, shown in reversed(EXAMPLES):  # from the end: earlier line numbers stay right
            if not bundled(command):
                continue
            new = regenerated(shown, run(command, Path(tmp)))
            if new != shown:
                print("\n".join(difflib.unified_diff(shown, new, command, command, lineterm="")))
                lines[fence + 2:fence + 2 + len(shown)] = new
    README.write_text("\n".join(lines))


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/test_readme_examples.py --update")
    update()
