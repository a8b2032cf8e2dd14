"""Start-up cost of the command line: CPU time (user + system, the child's own rusage) and wall
time of

* ``python -c 'import schemaseek.cli'``            target ≤ 0.5 s CPU (issue 16, item 4)
* ``schemaseek --version``
* ``schemaseek search ... --demo --mode keyword``   cold: a fresh data and cache directory
* ``schemaseek search ... --demo --json``, twice on one fresh data directory: the first run is
  cold, the second is what persistence (item 1) makes warm (target ≤ 1.5 s CPU)
* ``schemaseek search ... --sdl github.graphql --json`` warm (9K documents; target ≤ 2.5 s CPU):
  the data directory is filled by one ``index`` first, with the user's vector cache so that the
  9K documents are not embedded again on every repeat
* ``schemaseek mcp --sdl github.graphql``: seconds from ``initialize`` to the first
  ``search_schema`` answer, with an empty data directory (target ≤ 5 s, marked as building)
  and then for a second server on the same schema (target ≤ 3 s, hybrid)

Each command runs ``--repeat`` times (fresh directories per repeat where it says cold); the
median and the minimum are reported, with the machine, the load average before and after, and
the command line. ``--write`` appends the table to bench/RESULTS.md.

    python bench/startup.py [--repeat 5] [--write]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GITHUB = ROOT.parent / "shared" / "datasets" / "graphql" / "github.graphql"
QUESTION = "royalty payments for Sony"
IMPORT = "import schemaseek.cli"


def measure(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of ``command``; it must exit 0."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    assert process.stderr is not None
    errors = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode}): {errors[-2000:]}")
    return usage.ru_utime + usage.ru_stime, wall


def environment(folder: Path, *, vector_cache: Path | None = None) -> dict[str, str]:
    """Fresh data and cache directories under ``folder``; ``vector_cache`` keeps document
    vectors in an existing cache instead (the data directory is still fresh)."""
    env = {
        **os.environ,
        "SCHEMASEEK_DATA_DIR": str(folder / "data"),
        "SCHEMASEEK_CACHE_DIR": str(folder / "cache"),
        "XDG_CACHE_HOME": str(folder / "xdg"),
    }
    if vector_cache is not None:
        env["SCHEMASEEK_CACHE_DIR"] = str(vector_cache)
    return env


def user_vector_cache() -> Path:
    """Where this user's commands keep document vectors (``SCHEMASEEK_CACHE_DIR`` else the
    platform cache folder): filled once, it spares the GitHub rows 9K embeddings each."""
    from schemaseek.config import default_cache_dir

    return default_cache_dir()


def mcp_first_answer(env: dict[str, str], sdl: Path) -> tuple[float, float, bool]:
    """(seconds from ``initialize`` to the first ``search_schema`` answer, the server
    process's CPU seconds for the whole session — start, answer, exit —, whether the answer
    was degraded)."""
    import json
    import resource

    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.types import TextContent

    params = StdioServerParameters(
        command=schemaseek()[0], args=[*schemaseek()[1:], "mcp", "--sdl", str(sdl)], env=env
    )

    async def ask() -> tuple[float, bool]:
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                started = time.perf_counter()
                answer = await session.call_tool("search_schema", {"question": QUESTION})
                took = time.perf_counter() - started
        block = answer.content[0]
        assert isinstance(block, TextContent) and not answer.is_error, answer.content
        return took, "degraded" in json.loads(block.text)

    def children_cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    before = children_cpu()
    took, degraded = anyio.run(ask)
    return took, children_cpu() - before, degraded


def schemaseek() -> list[str]:
    """The installed entry point next to this Python, else ``python -m schemaseek``."""
    script = Path(sys.executable).parent / "schemaseek"
    return [str(script)] if script.exists() else [sys.executable, "-m", "schemaseek"]


Case = tuple[str, Callable[[Path], list[tuple[float, float]]]]


def cases() -> list[Case]:
    cli = schemaseek()

    def once(command: list[str]) -> Callable[[Path], list[tuple[float, float]]]:
        return lambda folder: [measure(command, environment(folder))]

    def twice(folder: Path) -> list[tuple[float, float]]:
        command = [*cli, "search", QUESTION, "--demo", "--json"]
        env = environment(folder)
        return [measure(command, env), measure(command, env)]

    def github_warm(folder: Path) -> list[tuple[float, float]]:
        env = environment(folder, vector_cache=user_vector_cache())
        measure([*cli, "index", "--sdl", str(GITHUB)], env)  # fills the data directory
        return [measure([*cli, "search", QUESTION, "--sdl", str(GITHUB), "--json"], env)]

    found: list[Case] = []
    if GITHUB.exists():
        found.append((f"`schemaseek search {QUESTION!r} --sdl github.graphql --json` (warm)",
                      github_warm))  # fmt: skip
    return [
        *found,
        ("`python -c 'import schemaseek.cli'`", once([sys.executable, "-c", IMPORT])),
        ("`schemaseek --version`", once([*cli, "--version"])),
        (
            f"`schemaseek search {QUESTION!r} --demo --mode keyword` (cold)",
            once([*cli, "search", QUESTION, "--demo", "--mode", "keyword"]),
        ),
        (f"`schemaseek search {QUESTION!r} --demo --json`, first run / second run", twice),
    ]


def mcp_rows(repeat: int) -> list[str]:
    """The MCP start: an empty data directory (vectors from the user's cache, so the answer
    races a build that is fast, not one that takes minutes: what counts is that it does not
    wait for it), then a second server on the data directory the first one filled."""
    rows = [
        "| `schemaseek mcp --sdl github.graphql` | initialize → first answer s (median / worst) "
        "| server CPU s, whole session (median) | answers degraded |",
        "|---|---|---|---|",
    ]
    first: list[tuple[float, float, bool]] = []
    second: list[tuple[float, float, bool]] = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            env = environment(Path(tmp))  # a fresh vector cache too: a truly cold first start
            first.append(mcp_first_answer(env, GITHUB))
            env_warm = environment(Path(tmp), vector_cache=user_vector_cache())
            measure([*schemaseek(), "index", "--sdl", str(GITHUB)], env_warm)
            second.append(mcp_first_answer(env_warm, GITHUB))
    for label, runs in (("empty data directory", first), ("second server, same schema", second)):
        took = [r[0] for r in runs]
        cpu = [r[1] for r in runs]
        rows.append(
            f"| {label} | {statistics.median(took):.2f} / {max(took):.2f} "
            f"| {statistics.median(cpu):.2f} | {sum(r[2] for r in runs)} of {len(runs)} |"
        )
    return rows


def machine() -> str:
    model = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return (
        f"{platform.machine()}, {os.cpu_count()} cores{f' ({model})' if model else ''}, "
        f"Python {platform.python_version()}"
    )


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="append to bench/RESULTS.md")
    args = parser.parse_args()
    before = load()
    rows = []
    for label, run in cases():
        runs: list[list[tuple[float, float]]] = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                runs.append(run(Path(tmp)))
        for step in range(len(runs[0])):
            cpu = [r[step][0] for r in runs]
            wall = [r[step][1] for r in runs]
            name = label if len(runs[0]) == 1 else f"{label.split(', first')[0]} — run {step + 1}"
            rows.append(
                f"| {name} | {statistics.median(cpu):.2f} | {min(cpu):.2f} "
                f"| {statistics.median(wall):.2f} | {min(wall):.2f} |"
            )
    lines = [
        f"`python bench/startup.py --repeat {args.repeat}` ({date.today().isoformat()}; "
        f"{machine()}; load average {before} before, {load()} after). CPU = user + system time "
        "of the command's own process (children included), median and best of the repeats; "
        "each repeat on fresh data and cache directories.",
        "",
        "| command | CPU s (median) | CPU s (best) | wall s (median) | wall s (best) |",
        "|---|---|---|---|---|",
        *rows,
    ]
    if GITHUB.exists():
        lines += ["", *mcp_rows(args.repeat)]
    text = "\n".join(lines)
    print(text)
    if args.write:
        results = ROOT / "bench" / "RESULTS.md"
        with results.open("a", encoding="utf-8") as out:
            out.write("\n## Start-up — `bench/startup.py`\n\n" + text + "\n")


if __name__ == "__main__":
    main()
