"""Store units (SQLite files, PostgreSQL schemas), the write gate, migration ledgers, the home
and its scope registry."""

from groundnote.store.backup import backup_home, restore_home, verify_backup
from groundnote.store.check import check_file, check_home
from groundnote.store.database import Database
from groundnote.store.gate import WriteGate, WriteGateReentrant
from groundnote.store.home import Home, ScopeInfo, Subsystem, home_exists
from groundnote.store.inspect import file_bytes, ledger_versions, table_counts
from groundnote.store.migrations import (
    Migration,
    MigrationChecksumMismatch,
    MissingTwin,
    load_migrations,
    migrate,
    split_sql,
)
from groundnote.store.oplog import OpLogEntry, write_entry
from groundnote.store.sqlite import SqliteDatabase, connect

__all__ = [
    "Database",
    "Home",
    "Migration",
    "MigrationChecksumMismatch",
    "MissingTwin",
    "OpLogEntry",
    "ScopeInfo",
    "SqliteDatabase",
    "Subsystem",
    "WriteGate",
    "WriteGateReentrant",
    "backup_home",
    "check_file",
    "check_home",
    "connect",
    "file_bytes",
    "home_exists",
    "ledger_versions",
    "load_migrations",
    "migrate",
    "restore_home",
    "split_sql",
    "table_counts",
    "verify_backup",
    "write_entry",
]
