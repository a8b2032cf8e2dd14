"""One typed settings object. Values come from arguments, ``SCHEMASEEK_*`` environment variables
or defaults, validated once; nothing mutates it afterwards (use ``model_copy(update=...)``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_WEIGHTS: dict[str, float] = {
    "keyword": 1.0,
    "keyword_expanded": 0.5,
    # the SQL keyword hits re-scored by coordination beyond chance, on the best BM25 score's
    # scale (coordination_power below); 2 at power 3 chosen on BIRD-dev and reported on
    # Spider-dev, and the reverse (both picked it; bench/QUALITY.md, session 23); 0 = off
    "coordination": 2.0,
    # tuned on BIRD-dev and Spider-dev; 1.0 did better on the GraphQL dev halves but cost our
    # synonym rewordings of both SQL sets 0.02-0.03 MRR, so 1.5 stays (bench/QUALITY.md)
    "vector": 1.5,
    "glossary": 1.0,
    # graph signals (spec 001); 0 = off. Defaults are set from measurements (bench/QUALITY.md)
    "degree": 0.0,
    "adamic_adar": 0.0,
    "betweenness": 0.0,
    "column_density": 0.0,
    "proximity": 0.0,
    # GraphQL root fields by where they lead; chosen on our GitLab/Saleor sets (under score
    # fusion; 1.0 was best under RRF)
    "reach": 2.0,
    # the name bridge (signals/name_bridge.py): question words no table or column name holds,
    # searched as their nearest name words; 0.3 chosen on BIRD-dev and on Spider-dev alike,
    # each reported on the other (bench/QUALITY.md); SQL documents only
    "bridge": 0.3,
    # usage feedback (ids chosen for similar past questions); active once events exist
    "feedback": 1.0,
}


DEFAULT_ROLE_WEIGHTS: dict[str, float] = {
    "entity": 1.0,
    **{r: 0.3 for r in ("wrapper", "payload", "input", "enum", "scalar", "unreachable", "root")},
}
"""Factor on a GraphQL type's fused score by its role (sources/graphql_roles.py)."""


class SearchSettings(BaseSettings):
    """Ranking and index parameters (spec 001 "Tuning Guide")."""

    model_config = SettingsConfigDict(env_prefix="SCHEMASEEK_", frozen=True, extra="forbid")

    # score fusion (min-max normalised signal scores, weighted) keeps the margins rank fusion
    # throws away; measured better on BIRD-dev, Spider-dev and our GraphQL sets (QUALITY.md)
    fusion: Literal["rrf", "weighted_sum"] = "weighted_sum"
    # score fusion: a vector list holding every candidate (fewer than asked for) is normalised
    # over at least this cosine range (tuned on BIRD-dev and Spider-dev; 0 = plain min-max)
    vector_min_span: float = Field(default=0.3, ge=0.0, le=2.0)
    rrf_k: float = Field(default=25.0, ge=1.0, le=100.0)
    weights: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    over_fetch: int = Field(default=4, ge=1, le=20)
    # every signal lists at least this many candidates (× 4 when a filter is active), and score
    # fusion normalises over the best this many of each, whatever the page's limit: the pages
    # of one search rank alike
    min_candidates: int = Field(default=80, ge=1, le=1000)
    feedback_min_similarity: float = Field(default=0.75, ge=0.0, le=1.0)
    # join propagation: tables FK-joined to the first `join_anchors` hits gain `join_boost`
    # times the relative scores of their two strongest such hits, a table that references the
    # hit (rather than one the hit references) `join_referencing_share` of that
    # (query.adjustments.propagate_joins; tuned on BIRD-dev and Spider-dev; 0 = off)
    join_boost: float = Field(default=0.33, ge=0.0, le=10.0)
    join_anchors: int = Field(default=5, ge=0, le=50)
    join_referencing_share: float = Field(default=0.73, ge=0.0, le=1.0)
    # items of the best hit's source gain this much (relative to the best score) when several
    # sources are searched together (query.adjustments.favour_leading_source; tuned on
    # BIRD-dev and Spider-dev)
    source_cohesion: float = Field(default=0.1, ge=0.0, le=10.0)
    # how many leading hits vote for their source (1: the best hit's source alone gains)
    source_cohesion_window: int = Field(default=1, ge=1, le=200)
    # GraphQL structure after fusion (query/graphql_priors.py): scale types by their role (an
    # entity an agent can query keeps its score; wrappers, payloads, inputs, enums, scalars,
    # unreachable and root types get 0.3), credit a type with this share of its best field's
    # score, and scale root fields of the other intent (read vs action). Chosen leave one
    # schema out on the dev halves of eight GraphQL question sets (bench/QUALITY.md)
    type_role_weights: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_ROLE_WEIGHTS))
    field_to_type_share: float = Field(default=0.8, ge=0.0, le=1.0)
    # a field that returns an entity type (`Repository.pullRequests`) is evidence for that type
    # first: it hands `linking_field_target_share` of its score to the type it returns and only
    # `linking_field_owner_share` to its owner (session 14, chosen leave one schema out on the
    # dev halves: type recall@10 +0.027 on the test halves, +0.021 on Unraid; bench/QUALITY.md).
    # 0 and 0.8 give the earlier behaviour (every field credits its owner alone)
    linking_field_target_share: float = Field(default=0.8, ge=0.0, le=1.0)
    linking_field_owner_share: float = Field(default=0.4, ge=0.0, le=1.0)
    intent_mismatch_weight: float = Field(default=0.5, ge=0.0, le=1.0)
    # root fields gain this share of the best leading type they reach (0 = off), the
    # leading `root_lead_targets` entity types counted, × `root_lead_decay` per extra hop
    root_lead_share: float = Field(default=1.0, ge=0.0, le=10.0)
    root_lead_targets: int = Field(default=5, ge=1, le=200)
    root_lead_decay: float = Field(default=0.7, ge=0.0, le=1.0)
    root_lead_hops: int = Field(default=3, ge=1, le=6)
    root_lead_argument_weight: float = Field(default=0.5, ge=0.0, le=1.0)
    # when the question is about the asker's own things ("my to-do list"), the root field that
    # returns the asker (`me`, `viewer`, `currentUser`) counts this many hops closer (0 = off).
    # Off in session 8 (-0.005 root hit@5 on the test halves); on since session 14, when with
    # the linking-field evidence LOSO picked 2 in all eight folds (held out +0.021 root hit@5)
    # and the test halves and Unraid lost nothing (root MRR +0.006); bench/QUALITY.md
    viewer_hop_credit: int = Field(default=2, ge=0, le=3)
    # an action question's mutations whose verb is of another family of change than the
    # question's ("rename …" against createX / deleteX) are scaled by this (query/action_verbs.py;
    # 0.6 chosen on the dev halves of the eight GraphQL sets, bench/QUALITY.md)
    verb_mismatch_weight: float = Field(default=0.6, ge=0.0, le=1.0)
    # hub reduction: the vector signal ranks by cos(q − β·centroid, d), which takes from every
    # document its similarity to the mean document (β; 0 = plain cosine). Documents close to
    # everything (long generic descriptions) lose their head start (Suzuki et al. 2013,
    # "Centering similarity measures to reduce hubs")
    hub_reduction: float = Field(default=0.0, ge=0.0, le=2.0)
    # dense pseudo-relevance feedback (Rocchio): search again with the question's vector moved
    # towards the mean of its `vector_prf_docs` nearest documents by this weight (0 = off)
    vector_prf_weight: float = Field(default=0.0, ge=0.0, le=5.0)
    vector_prf_docs: int = Field(default=3, ge=1, le=50)
    # the name bridge: a question word is led to its `bridge_neighbours` nearest name words of
    # cosine `bridge_threshold` or more (chosen with the weight above); the query side caches
    # the vectors of `bridge_word_cache` words
    bridge_threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    bridge_neighbours: int = Field(default=1, ge=1, le=10)
    bridge_word_cache: int = Field(default=4096, ge=1)
    weak_hit_cut: bool = False
    weak_hit_sample: int = Field(default=2048, ge=16)
    max_related: int = Field(default=5, ge=0, le=50)
    related_for_top: int = Field(default=5, ge=0, le=100)

    keyword_field_weights: dict[str, float] = Field(
        default_factory=lambda: {"name": 2.0, "description": 1.5, "members": 1.0, "context": 1.0}
    )
    prefix_min_results: int = Field(default=5, ge=0)

    exact_threshold: int = Field(default=25_000, ge=0)
    hnsw_m: int = Field(default=16, ge=4, le=128)
    hnsw_ef_construction: int = Field(default=200, ge=8)
    hnsw_ef_search: int = Field(default=50, ge=8)

    embedding_batch_size: int = Field(default=64, ge=1, le=4096)
    device: Literal["cpu", "cuda", "auto"] = "cpu"
    query_prefix: str = ""
    query_cache_size: int = Field(default=1024, ge=1)
    query_cache_ttl_s: float = Field(default=600.0, ge=0)

    max_query_length: int = Field(default=2048, ge=1)
    max_search_limit: int = Field(default=200, ge=1)

    # keyword coordination (schemaseek.signals.coordination): a BM25 hit × (floor + (1 − floor)
    # × idf share of the question it holds beyond chance) ** power. keyword_coordination > 0
    # re-scores the keyword lists in place (an option: p 3, chosen on BIRD-dev and reported on
    # Spider-dev and the reverse, lifts both but costs Spider 2.0's pooled catalog deep
    # recall); weights["coordination"] (on by default) fuses the coordinated SQL hits beside
    # the plain list, on the best BM25 score's scale, at `coordination_power`
    keyword_coordination: float = Field(default=0.0, ge=0.0, le=10.0)
    keyword_coordination_floor: float = Field(default=0.05, ge=0.0, le=1.0)
    coordination_power: float = Field(default=3.0, ge=0.0, le=10.0)
    # in hybrid searches, the keyword list and its coordinated copy weighted by
    # (1 − share of the question's content words no name and no indexed text holds) ** power
    # (schemaseek.query.coverage); 1 chosen on BIRD-dev, reported on Spider-dev (and the
    # reverse, bench/QUALITY.md, session 24); 0 = off
    lexical_coverage_power: float = Field(default=1.0, ge=0.0, le=10.0)

    # rerank stage (spec 003 "Reranking"): "none", "cross-encoder" or "late-interaction" (the
    # default: MaxSim over the embedding model's token vectors, nothing extra to install).
    # rerank_candidates: how many leading fused candidates are re-scored; rerank_alpha: the
    # weight of MaxSim against the fused scores. 10 and 0.33 were swept on BIRD-dev and
    # Spider-dev (bench/QUALITY.md); 15 candidates cost Spider 2.0 pooled all_gold@10.
    reranker: str = "late-interaction"
    reranker_model_path: str | None = None
    reranker_tokenizer_path: str | None = None
    rerank_candidates: int = Field(default=10, ge=1, le=1000)
    rerank_alpha: float = Field(default=0.33, ge=0.0, le=1.0)
    # indexes of more documents skip the rerank stage: late interaction keeps the token vectors
    # of 4,096 documents, and past that a search keeps encoding candidates on the query path
    # (Spider 2.0, 6,858 tables: p50 320 ms instead of 6 ms)
    rerank_max_documents: int = Field(default=4096, ge=0)

    # lifecycle: engines, snapshot generations, circuit breakers, remote embeddings
    snapshot_dir: str | None = None
    snapshot_min_generations: int = Field(default=2, ge=2)
    breaker_strategy: Literal["consecutive", "fixed", "rolling"] = "rolling"
    breaker_failure_threshold: int = Field(default=5, ge=1)
    breaker_window_s: float = Field(default=60.0, gt=0)
    breaker_cooldown_s: float = Field(default=30.0, ge=0)
    breaker_success_threshold: int = Field(default=1, ge=1)
    poll_interval_s: float = Field(default=300.0, gt=0)
    poll_jitter: float = Field(default=0.1, ge=0.0, le=1.0)
    shutdown_timeout_s: float = Field(default=10.0, gt=0)
    embedding_provider: Literal["onnx", "openai"] = "onnx"
    # "onnx" provider: a directory with model.onnx + tokenizer.json (schemaseek.embedding.
    # model_dir) instead of the packaged all-MiniLM-L6-v2, e.g. the all-mpnet-base-v2 that
    # `make model-mpnet` builds (better held out, about 6x the embedding time: bench/QUALITY.md)
    onnx_model: str | None = None
    # the share of the dense score that onnx_model's vectors give; the packaged MiniLM gives the
    # rest (both models embed; schemaseek.embedding.fused). 1 = the directory's model alone.
    # 0.7 was chosen leave one schema out on the GraphQL dev halves with all-mpnet-base-v2
    onnx_model_share: float = Field(default=0.7, gt=0.0, le=1.0)
    # a linear map applied to the question's vector before the cosine (schemaseek.embedding.
    # query_adapter): "auto" = the packaged one when the index embeds with the packaged model
    # (fitted on our GraphQL dev halves; scored on schemas it never saw in bench/QUALITY.md),
    # "none", or the path of an .npz that tools/train_query_adapter.py wrote for the model used
    query_adapter: str = "auto"
    embedding_model: str = "text-embedding-3-small"
    embedding_base_url: str = "https://api.openai.com/v1"
    embedding_api_key_env: str = "OPENAI_API_KEY"
    embedding_dimensions: int = Field(default=1536, ge=1)
    # remote (openai) provider: most document requests outstanding at once during a build
    embedding_max_in_flight: int = Field(default=4, ge=1, le=64)
    query_embedding_timeout_s: float = Field(default=2.0, gt=0)

    @field_validator("type_role_weights")
    @classmethod
    def _known_roles(cls, value: dict[str, float]) -> dict[str, float]:
        merged = dict(DEFAULT_ROLE_WEIGHTS)
        for role, weight in value.items():
            if role not in DEFAULT_ROLE_WEIGHTS:
                known = ", ".join(DEFAULT_ROLE_WEIGHTS)
                raise ValueError(f"unknown type role {role!r}; known: {known}")
            if not 0 <= weight <= 1:
                raise ValueError(f"weight of role {role!r} must be between 0 and 1")
            merged[role] = weight
        return merged

    @field_validator("weights")
    @classmethod
    def _known_signals(cls, value: dict[str, float]) -> dict[str, float]:
        merged = dict(DEFAULT_WEIGHTS)
        for name, weight in value.items():
            if weight < 0:
                raise ValueError(f"weight of signal {name!r} must be >= 0")
            merged[name] = weight
        return merged


def data_dir() -> Path:
    """The one data directory of every command (snapshots, the embedding cache, the service's
    files): ``$SCHEMASEEK_DATA_DIR``, else the platform's user cache directory for schemaseek
    (``~/.cache/schemaseek`` on Linux, via platformdirs). Outside any checkout, so every
    project and fresh clone on one machine shares what is cached by content."""
    explicit = os.environ.get("SCHEMASEEK_DATA_DIR")
    if explicit:
        return Path(explicit).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("schemaseek"))


def default_cache_dir() -> Path:
    """Where reusable caches live (document embeddings, under ``embeddings/``):
    ``$SCHEMASEEK_CACHE_DIR`` when set, else :func:`data_dir`."""
    explicit = os.environ.get("SCHEMASEEK_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    return data_dir()
