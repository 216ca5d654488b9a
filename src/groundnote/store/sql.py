"""The connection, row and error types that subsystem code is written against.

Subsystems name these, never a driver's module, so that one body of subsystem code serves
every backend the store implements; the store maps each backend's errors onto them.
"""

from __future__ import annotations

import sqlite3

__all__ = ["Connection", "IntegrityError", "Row", "StoreError"]

Connection = sqlite3.Connection
Row = sqlite3.Row
IntegrityError = sqlite3.IntegrityError
StoreError = sqlite3.Error
