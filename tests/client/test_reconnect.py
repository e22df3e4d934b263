"""A client whose server dies mid-game reconnects and plays on, once a new server (on the same
port and the same Redis) is up: the game lives in Redis, the client resumes Watch from the last
version it saw."""

from __future__ import annotations

from pathlib import Path

from .conftest import SECRET, ServerProcess, SpawnClient


def test_the_client_resumes_after_the_server_is_killed_and_restarted(
    fresh_redis_url: str, tmp_path: Path, spawn_client: SpawnClient
) -> None:
    server = ServerProcess(
        tmp_path, env={"REDIS_URL": fresh_redis_url, "VERRATER_TOKEN_SECRET": SECRET}
    )
    server.start()
    try:
        client = spawn_client("play", "--server", server.address, "--name", "Survivor")
        client.play(decisions=5)  # well into the game: first estate, then a few rounds' choices
        question = client.frames[-1]
        server.kill()
        client.answer(question)  # the move goes out while nobody listens on the port
        client.expect("Connection to .* lost")
        server.start()
        client.expect("Reconnected", timeout=60)
        client.play_to_the_end()
        # The command that was on its way went through and the Watch stream resumed: the game
        # reached its end. (Whether the two recover in one message or two is a matter of which
        # notices the server first: counting the "Reconnected" lines failed on a busy machine.)
        assert client.finish() == 0
    finally:
        server.stop()
