"""The schemaseek MCP server on the official ``mcp`` SDK, over in-process indexes (one
SchemaIndex, or a service's engines through a :class:`~schemaseek.mcp.served.ServedIndexes`).

:func:`build_server` registers six tools that call :class:`~schemaseek.mcp.tools.SchemaTools`
(no second search implementation). Each tool returns its JSON answer twice, as the SDK
recommends: as compact JSON text (what token budgets are counted on) and as structured content.

* stdio: :func:`run_stdio` (``schemaseek mcp --demo``); stdout carries the protocol only.
* streamable HTTP: :func:`http_app` returns a Starlette ASGI app serving ``/mcp``. Its lifespan
  runs the SDK's session manager: when the app is mounted inside another ASGI app, run
  ``server.session_manager.run()`` in the parent's lifespan (Starlette does not run the
  lifespans of mounted apps).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal

import anyio.from_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from schemaseek import __version__
from schemaseek.feedback import FeedbackStore
from schemaseek.mcp.budget import dumps
from schemaseek.mcp.coverage import coverage_search as run_coverage
from schemaseek.mcp.served import ServedIndexes
from schemaseek.mcp.tools import DEFAULT_BUDGET, MIN_BUDGET, SchemaTools, ToolInputError

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from schemaseek.index import SchemaIndex

__all__ = ["INSTRUCTIONS", "build_server", "http_app", "run_stdio"]

INSTRUCTIONS = """\
schemaseek finds the GraphQL operations, types and SQL tables that answer a business question.
1. search_schema with the user's question in their own words. Read "match": with "none" there
   is no answer in this schema; with "weak" verify before use.
2. describe the ids you plan to use (exact ids from the results).
3. GraphQL: graphql_selection(id, query_id) gives a validated query to fill in. SQL: join tables
   only along paths from join_path (similar names are not joins).
4. coverage_search once, only when a multi-part question still lacks a table, field or join.
5. report_usage(query_id, ids) with the ids you actually used."""

KindName = Literal["graphql_root_field", "graphql_type", "graphql_field", "sql_table"]
_READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
_Sources = Annotated[
    list[str] | None,
    Field(description="Only these source names (a GraphQL API or a database). Default: all."),
]
_Kinds = Annotated[
    list[KindName] | None,
    Field(
        description="Only these kinds: graphql_root_field (operations), graphql_type, "
        "graphql_field, sql_table. Default: all."
    ),
]


def _answer(payload: dict[str, Any]) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=dumps(payload))], structured_content=payload
    )


def build_server(
    index: SchemaIndex | ServedIndexes,
    *,
    feedback: FeedbackStore | None = None,
    name: str = "schemaseek",
    ready: threading.Event | None = None,
    ready_timeout: float = 300.0,
    failure: Sequence[BaseException] = (),
) -> MCPServer:
    """An MCP server whose tools answer from ``index`` (or several, as :class:`ServedIndexes`)
    and record to ``feedback``.

    ``index`` must be built, or be building elsewhere with ``ready`` set once it is done (and
    any build error appended to ``failure``): tools wait up to ``ready_timeout`` seconds.
    """
    tools = SchemaTools(index, feedback)
    server: MCPServer = MCPServer(name, instructions=INSTRUCTIONS, version=__version__)

    def call(action: Any, *args: Any, **kwargs: Any) -> CallToolResult:
        ctx = kwargs.pop("ctx", None)
        if ready is not None and not _wait(ready, ready_timeout, ctx):
            raise ToolError("the schema index is still being built; try again in a minute")
        if failure:
            raise ToolError(f"the schema index could not be built: {failure[0]}")
        try:
            return _answer(action(*args, **kwargs))
        except ToolInputError as exc:
            raise ToolError(str(exc)) from exc

    @server.tool(
        description="Find the GraphQL root fields, types, fields and SQL tables that answer a "
        "business question. Returns ranked results (id, kind, source, why it matched; "
        "GraphQL: signature and root path with required arguments; SQL: columns and foreign-key "
        "relationships with ON clauses), join_paths among the SQL tables found, curated "
        "examples, a query_id for graphql_selection/report_usage, and match = strong | weak | "
        "none. The answer fits token_budget: top results carry full detail, lower ones less; "
        "'truncated' counts shortened results and 'omitted' the ones left out.",
        annotations=_READ_ONLY,
    )
    def search_schema(
        question: Annotated[
            str,
            Field(
                min_length=1,
                max_length=2048,
                description="The question in business language, e.g. 'royalty payments for Sony'.",
            ),
        ],
        sources: _Sources = None,
        kinds: _Kinds = None,
        limit: Annotated[int, Field(ge=1, le=50, description="Most results ranked.")] = 10,
        token_budget: Annotated[
            int,
            Field(ge=MIN_BUDGET, le=32_000, description="Most tokens the answer may take."),
        ] = DEFAULT_BUDGET,
        ctx: Context | None = None,
    ) -> CallToolResult:
        return call(
            tools.search_schema, question, sources or (), kinds or (), limit, token_budget,
            ctx=ctx,
        )  # fmt: skip

    @server.tool(
        description="Full detail of schema items by exact id: a GraphQL type as trimmed SDL "
        "(its fields with arguments and types; depth 2 also prints the types its fields "
        "return), a GraphQL field as its signature with argument notes and root path, a SQL "
        "table as DDL with column types, comments, primary key and foreign keys.",
        annotations=_READ_ONLY,
    )
    def describe(
        ids: Annotated[
            list[str],
            Field(min_length=1, max_length=20, description="Exact ids from search_schema."),
        ],
        depth: Annotated[
            int, Field(ge=1, le=2, description="1: the item; 2: nested types too.")
        ] = 1,
    ) -> CallToolResult:
        return call(tools.describe, ids, depth)

    @server.tool(
        description="Foreign-key join paths between 2-4 SQL tables: at most 2 shortest paths "
        "of at most 3 joins per pair, with ON clauses and a FROM/JOIN snippet; inferred keys "
        "are flagged. Pairs with no path are listed under no_path: never join those on guesses.",
        annotations=_READ_ONLY,
    )
    def join_path(
        tables: Annotated[
            list[str],
            Field(min_length=2, max_length=4, description="SQL table ids, e.g. 'royalty_payment'."),
        ],
    ) -> CallToolResult:
        return call(tools.join_path, tables)

    @server.tool(
        description="A GraphQL query skeleton from a root field down to a type or field: "
        "required arguments as variables, the leaf selecting __typename and a few scalars; "
        "validated against the schema with graphql-core (valid=false with errors otherwise). "
        "Pass the query_id of the search that found the id to start from its root fields.",
        annotations=_READ_ONLY,
    )
    def graphql_selection(
        id: Annotated[str, Field(min_length=1, description="A GraphQL type or field id.")],
        query_id: Annotated[
            str | None, Field(description="query_id of the search that returned the id.")
        ] = None,
    ) -> CallToolResult:
        return call(tools.graphql_selection, id, query_id)

    @server.tool(
        name="coverage_search",
        description="Use at most once per task, when a multi-part question still misses a "
        "table, field or join after search_schema: 2-3 short distinct phrases (one concept "
        "each, at most 512 bytes) searched in one call with one batched embedding. Returns each "
        "phrase's own anchor and hits, the combined candidates, up to 4 endpoint tables with "
        "their real join paths, and next_ids to pass to describe.",
        annotations=_READ_ONLY,
    )
    def coverage(
        phrases: Annotated[
            list[str],
            Field(
                min_length=2, max_length=3, description="2-3 phrases, e.g. ['artists', 'payouts']."
            ),
        ],
        sources: _Sources = None,
        kinds: _Kinds = None,
        limit: Annotated[int, Field(ge=1, le=20, description="Hits kept per phrase.")] = 5,
        ctx: Context | None = None,
    ) -> CallToolResult:
        return call(run_coverage, tools, phrases, sources or (), kinds or (), limit, ctx=ctx)

    @server.tool(
        description="Report which ids from a search_schema answer you actually used (feedback "
        "that improves ranking). Unknown ids are listed, not stored.",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False),
    )
    def report_usage(
        query_id: Annotated[str, Field(min_length=1, description="query_id of the search.")],
        ids: Annotated[list[str], Field(min_length=1, max_length=50, description="Ids you used.")],
    ) -> CallToolResult:
        return call(tools.report_usage, query_id, ids)

    return server


def _wait(ready: threading.Event, timeout: float, ctx: Context | None) -> bool:
    """Wait for the index (from a tool's worker thread), telling the client every second that
    it is being built (MCP progress notifications, when the client asked for them)."""
    waited = 0.0
    while not ready.wait(min(1.0, max(0.0, timeout - waited))):
        waited += 1.0
        if waited >= timeout:
            return False
        if ctx is not None:
            try:
                anyio.from_thread.run(
                    ctx.report_progress, waited, timeout, "building the schema index"
                )
            except Exception:
                ctx = None
    return True


def http_app(
    index_or_server: SchemaIndex | MCPServer,
    *,
    path: str = "/mcp",
    host: str = "127.0.0.1",
    stateless: bool = False,
    json_response: bool = False,
) -> Starlette:
    """A Starlette ASGI app serving MCP over streamable HTTP at ``path``.

    ``host`` is the address the app will be served on: for loopback hosts the SDK turns on
    DNS-rebinding protection (only ``127.0.0.1``/``localhost`` Host headers are accepted).
    """
    server = (
        index_or_server if isinstance(index_or_server, MCPServer) else build_server(index_or_server)
    )
    return server.streamable_http_app(
        streamable_http_path=path, host=host, stateless_http=stateless, json_response=json_response
    )


def run_stdio(server: MCPServer) -> None:
    """Serve over stdin/stdout until the client closes the connection."""
    server.run("stdio")
