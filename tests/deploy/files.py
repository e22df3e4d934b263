"""The deployment files and what the code says, loaded once for every test module here.

Shared by `test_configuration.py`, `test_compose.py`, `test_dockerfile.py` and `test_k8s.py`: the
paths, the image and commands every file must agree on, and the parsed files themselves.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path
from typing import Any

import dockerfile
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
#: The browser's door: HTTP (gRPC-Web and the page) on the port of VERRATER_WEB_BIND.
WEB_COMMAND = ["serve", "web"]
DEPLOYMENTS = {
    "verrater-lobby": APP_SERVICES["lobby"],
    "verrater-game": APP_SERVICES["game"],
    "verrater-ai": APP_SERVICES["ai"],
    "verrater-ai-worker": WORKER_COMMAND,
    "verrater-web": WEB_COMMAND,
}
SECRET_NAME = "verrater-secrets"
SECRET_ENV_FILE = "secrets.env"


# --- what the code says ---------------------------------------------------------------------------


@cache
def config_env_names() -> frozenset[str]:
    """The variables `Config.from_env` reads: every `env.get("NAME", ...)` in its body, and every
    `_int(env, "NAME", ...)`, `_float(...)` and `_optional_int(...)` (the parsing helpers)."""
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
    } | {
        call.args[1].value
        for call in ast.walk(from_env)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id in {"_int", "_float", "_optional_int"}
        and len(call.args) > 1
        and isinstance(call.args[1], ast.Constant)
        and isinstance(call.args[1].value, str)
    }
    return frozenset(names)


def default_port() -> int:
    return int(Config().bind.rsplit(":", 1)[1])


def default_web_port() -> int:
    return int(Config().web_bind.rsplit(":", 1)[1])


def port_of(address: str) -> int:
    return int(address.rsplit(":", 1)[1])


# --- docker-compose.yml ---------------------------------------------------------------------------


@cache
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE_FILE.read_text())  # resolves the << merges
    return loaded


def image_repository(reference: str) -> str:
    """`registry:5000/team/verrater:1.0@sha256:...` -> `registry:5000/team/verrater`."""
    reference = reference.split("@", 1)[0]
    last = reference.rsplit("/", 1)[-1]
    if ":" in last:
        reference = reference[: len(reference) - len(last)] + last.split(":", 1)[0]
    return reference


def app_services() -> dict[str, dict[str, Any]]:
    """The compose services that run the verrater image."""
    return {
        name: service
        for name, service in compose()["services"].items()
        if image_repository(service["image"]) == IMAGE
    }


# --- Dockerfile -----------------------------------------------------------------------------------


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


# --- deploy/k8s -----------------------------------------------------------------------------------


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
