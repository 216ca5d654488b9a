"""The uvicorn that serves the app, with the timeouts uvicorn leaves out.

uvicorn closes a kept-alive connection that stays idle (`timeout_keep_alive`), but a
connection that never sends a whole request head (opened and left idle, or a head sent a byte
at a time) is held forever, and enough of them exhaust the server's file descriptors. The
protocol here closes a connection whose request head is not complete `header_timeout_seconds`
after it opened or after its previous answer.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from groundnote.config import ServerConfig

__all__ = ["HeadTimeoutProtocol", "uvicorn_config"]


class HeadTimeoutProtocol(H11Protocol):
    header_timeout: float = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._answered: object | None = None  # the last cycle whose head had arrived

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(self.header_timeout, self._head_late)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            # h11 writes an answer's head and body apart; without this, Nagle holds the body
            # back for the client's delayed ACK: 40 ms per answer on a kept-alive connection.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.cycle is not None and self.cycle is not self._answered:
            self._answered = self.cycle  # the head is in: the request runs untimed
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next head must arrive in time as well


def uvicorn_config(app: Any, host: str, port: int, server: ServerConfig) -> uvicorn.Config:
    protocol = type(
        "HeadTimeoutProtocol",
        (HeadTimeoutProtocol,),
        {"header_timeout": server.header_timeout_seconds},
    )
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        http=protocol,
        timeout_keep_alive=server.idle_timeout_seconds,
    )
