"""How the MCP answer's ``match`` (strong / weak / none, :mod:`schemaseek.mcp.confidence`)
falls on real questions and on questions the schema cannot answer.

For every schema with a labelled question set in ``bench/questions`` (the held-out GitHub and
Shopify schemas have none), each labelled question and each of a fixed list of off-topic
questions (written once, generic, for no schema) is searched with the default settings; the
evidence (best cosine and word coverage over the top five) and the verdict are written as JSON
Lines, and a table of verdict counts per set is printed. Leave-one-schema-out: a threshold is
judged on the schemas it was not read from.

    python bench/confidence_calibration.py --out /tmp/confidence.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from schemaseek.config import SearchSettings, default_cache_dir
from schemaseek.embedding.disk_cache import DiskCachedProvider
from schemaseek.embedding.factory import provider_from_settings
from schemaseek.index import SchemaIndex
from schemaseek.mcp.confidence import assess
from schemaseek.sources.graphql import load_sdl

HERE = Path(__file__).resolve().parent
DATASETS = HERE.parents[1] / "shared" / "datasets" / "graphql"
SCHEMAS = [
    "gitlab",
    "saleor",
    "linear",
    "monday",
    "hashnode",
    "artsy",
    "buildkite",
    "opencollective",
]
OFF_TOPIC = [
    "how tall is mount everest",
    "purple elephant tax on moonlight",
    "what is the boiling point of water at altitude",
    "recipe for sourdough bread with rye flour",
    "who won the football world cup in 1998",
    "translate good morning into japanese",
    "symptoms of vitamin d deficiency",
    "best hiking trails near the alps in autumn",
    "how do volcanoes form under the ocean",
    "lyrics of a famous lullaby",
    "distance from the earth to the moon in miles",
    "how to tie a bowline knot",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("confidence.jsonl"))
    parser.add_argument("--schemas", nargs="*", default=SCHEMAS)
    args = parser.parse_args()
    provider = DiskCachedProvider(
        provider_from_settings(SearchSettings()), default_cache_dir() / "embeddings"
    )
    counts: dict[tuple[str, str], Counter[str]] = {}
    with args.out.open("w", encoding="utf-8") as out:
        for name in args.schemas:
            index = SchemaIndex([load_sdl(DATASETS / f"{name}.graphql", name)], provider=provider)
            index.build()
            lines = (HERE / "questions" / f"{name}.jsonl").read_text("utf-8").splitlines()
            real = [json.loads(line)["question"] for line in lines if line.strip()]
            for kind, questions in (("real", real), ("off_topic", OFF_TOPIC)):
                tally = counts.setdefault((name, kind), Counter())
                for question in questions:
                    verdict = assess(index.search(question))
                    tally[verdict.match] += 1
                    row = {"schema": name, "kind": kind, "question": question}
                    row |= {"cosine": verdict.cosine, "coverage": verdict.coverage}
                    row |= {"match": verdict.match}
                    out.write(json.dumps(row) + "\n")
            print(name, {k: dict(v) for (s, k), v in counts.items() if s == name}, flush=True)


if __name__ == "__main__":
    main()
