"""`verrater bench echo`: what this machine's gRPC costs, to read the other figures against.

A bare grpc.aio server with one unary method that returns its request, in a child process, and
this process calling it from many concurrent coroutines on one channel, as `bench game` does.
It reports the calls answered per second and the server's CPU time per call: the floor under
every unary call of the game service, whatever its handler does. Performance targets quoted for
another machine translate to this one by the ratio of the two echo figures.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import grpc
from grpc import aio

from .common import cpu_ms_per, cpu_seconds, free_port

_METHOD = "/verrater.bench.Echo/Echo"


def _identity(data: bytes) -> bytes:
    return data


async def serve(port: int) -> None:
    """The echo server (run in the child process)."""

    async def echo(request: bytes, context: aio.ServicerContext[bytes, bytes]) -> bytes:
        return request

    server = aio.server()
    handler = grpc.unary_unary_rpc_method_handler(
        echo, request_deserializer=_identity, response_serializer=_identity
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("verrater.bench.Echo", {"Echo": handler}),)
    )
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


async def _load(port: int, concurrency: int, duration: float, pid: int) -> dict[str, float | None]:
    async with aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = channel.unary_unary(
            _METHOD, request_serializer=_identity, response_deserializer=_identity
        )
        await call(b"ready?", wait_for_ready=True, timeout=20)
        calls = 0
        deadline = time.monotonic() + duration

        async def caller() -> None:
            nonlocal calls
            payload = b"x" * 64
            while time.monotonic() < deadline:
                await call(payload)
                calls += 1

        cpu_before = cpu_seconds(pid)
        started = time.monotonic()
        await asyncio.gather(*[caller() for _ in range(concurrency)])
        elapsed = time.monotonic() - started
        cpu_after = cpu_seconds(pid)
    return {
        "calls_per_s": round(calls / elapsed, 1),
        "server_cpu_ms_per_call": cpu_ms_per(cpu_before, cpu_after, calls),
    }


def run_echo_bench(duration: float, concurrency: int = 16) -> dict[str, float | None]:
    """Start the echo server, load it for `duration` seconds, stop it, return the figures."""
    port = free_port()
    child = subprocess.Popen(
        [sys.executable, "-c", f"import asyncio, {__name__} as e; asyncio.run(e.serve({port}))"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        return asyncio.run(_load(port, concurrency, duration, child.pid))
    finally:
        child.terminate()
        child.wait(timeout=20)
