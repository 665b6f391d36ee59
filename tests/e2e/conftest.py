"""Process-level tests share the daemon tests' receiver and PostgreSQL-only marker handling."""

from tests.daemon.conftest import _postgres_only, receiver

__all__ = ["_postgres_only", "receiver"]
