"""The HTTP port answers without Nagle's delay: each accepted connection has TCP_NODELAY."""

import asyncio
import socket

from serai.transports.connect.server import HttpServer


async def _no_content(scope, receive, send):
    await send({"type": "http.response.start", "status": 204, "headers": []})
    await send({"type": "http.response.body", "body": b""})


def test_accepted_connections_have_nagle_off():
    """asyncio sets TCP_NODELAY only on connections of a socket whose proto says TCP; without it
    uvicorn's body waits for the client's delayed ACK (about 40 ms a call)."""

    async def scenario():
        server = HttpServer(_no_content)
        port = await server.start("127.0.0.1", 0)
        try:
            assert server._socket is not None
            assert server._socket.proto == socket.IPPROTO_TCP
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n")
            await writer.drain()
            status = await reader.readline()
            writer.close()
            return status
        finally:
            await server.stop(0.1)

    assert asyncio.run(scenario()).startswith(b"HTTP/1.1 204")
