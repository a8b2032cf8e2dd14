"""Fixtures for the real services the source tests use: PostgreSQL, MariaDB, Redis.

Each fixture connects to the service on this machine (override the address with the
environment variables below). When a service is not there the test is skipped with the reason,
unless ``SCHEMASEEK_REQUIRE_SERVICES=1`` is set: then it fails, so CI cannot pass by skipping.

* ``postgres_url`` (session): server URL, default ``postgresql+psycopg://postgres@127.0.0.1:5432/postgres``
  (``SCHEMASEEK_TEST_POSTGRES_URL``);
* ``postgres_database`` (function): a fresh database ``schemaseek_test_<random>`` created for the
  test and dropped after it; yields its URL;
* ``mariadb_url`` (session): server URL, default ``mysql+pymysql://root@127.0.0.1:3306/``
  (``SCHEMASEEK_TEST_MARIADB_URL``);
* ``mariadb_prefix`` (function): a random database-name prefix ``sst_<random>_``; every database
  whose name starts with it is dropped after the test;
* ``redis_address`` (session): ``(host, port)`` of a Redis that answers ``PING``, default
  ``127.0.0.1:6379`` (``SCHEMASEEK_TEST_REDIS``);
* ``s3_endpoint`` (session): the URL of moto's S3 server started on a loopback port;
  :func:`bucket` makes a fresh bucket there (test credentials in the environment).

Use them from a test package by importing them into its ``conftest.py``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import socket
from collections.abc import Iterator
from typing import Any, NoReturn

import pytest
import sqlalchemy

REQUIRE = "SCHEMASEEK_REQUIRE_SERVICES"
POSTGRES_DEFAULT = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
MARIADB_DEFAULT = "mysql+pymysql://root@127.0.0.1:3306/"


def unavailable(reason: str) -> NoReturn:
    """Skip with ``reason``, or fail when ``SCHEMASEEK_REQUIRE_SERVICES=1``."""
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(f"{reason} ({REQUIRE}=1, so this fails instead of skipping)")
    pytest.skip(reason)


def _probe(url: str, name: str, module: str) -> sqlalchemy.Engine:
    try:
        __import__(module)
    except ImportError:
        unavailable(f"{name}: the driver {module} is not installed (pip install -e '.[dev]')")
    engine = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT", pool_pre_ping=True)
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except sqlalchemy.exc.SQLAlchemyError as exc:
        engine.dispose()
        first = str(exc).splitlines()[0]
        unavailable(f"{name} is not reachable at {engine.url.render_as_string()}: {first}")
    return engine


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    url = os.environ.get("SCHEMASEEK_TEST_POSTGRES_URL", POSTGRES_DEFAULT)
    _probe(url, "PostgreSQL", "psycopg").dispose()
    yield url


@pytest.fixture()
def postgres_database(postgres_url: str) -> Iterator[str]:
    name = f"schemaseek_test_{secrets.token_hex(4)}"
    admin = sqlalchemy.create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = sqlalchemy.make_url(postgres_url).set(database=name)
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture(scope="session")
def mariadb_url() -> Iterator[str]:
    url = os.environ.get("SCHEMASEEK_TEST_MARIADB_URL", MARIADB_DEFAULT)
    _probe(url, "MariaDB", "pymysql").dispose()
    yield url


@pytest.fixture()
def mariadb_prefix(mariadb_url: str) -> Iterator[str]:
    prefix = f"sst_{secrets.token_hex(3)}_"
    try:
        yield prefix
    finally:
        admin = sqlalchemy.create_engine(mariadb_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            names = [
                str(row[0])
                for row in conn.exec_driver_sql("SHOW DATABASES")
                if str(row[0]).startswith(prefix)
            ]
            conn.exec_driver_sql("SET FOREIGN_KEY_CHECKS = 0")
            for name in names:
                conn.exec_driver_sql(f"DROP DATABASE IF EXISTS `{name}`")
        admin.dispose()


@pytest.fixture(scope="session")
def redis_address() -> tuple[str, int]:
    host, _, port = os.environ.get("SCHEMASEEK_TEST_REDIS", "127.0.0.1:6379").rpartition(":")
    address = (host or "127.0.0.1", int(port))
    try:
        with socket.create_connection(address, timeout=2) as sock:
            sock.sendall(b"PING\r\n")
            answer = sock.recv(64)
    except OSError as exc:
        unavailable(f"Redis is not reachable at {address[0]}:{address[1]}: {exc}")
    if not answer.startswith(b"+PONG"):
        unavailable(f"the service at {address[0]}:{address[1]} does not answer PING like Redis")
    return address


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    moto_server = pytest.importorskip("moto.server")
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@contextlib.contextmanager
def bucket(endpoint: str, name: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A new bucket ``name`` on the moto server; yields the boto3 client; emptied and deleted
    afterwards."""
    import boto3

    for key, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(key, value)
    s3 = boto3.client("s3", endpoint_url=endpoint)
    s3.create_bucket(Bucket=name)
    try:
        yield s3
    finally:
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=name):
            for item in page.get("Contents", []):
                s3.delete_object(Bucket=name, Key=item["Key"])
        s3.delete_bucket(Bucket=name)
