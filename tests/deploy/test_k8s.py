"""The manifests in `deploy/k8s/`, checked offline: no cluster.

Every manifest against the Kubernetes OpenAPI schemas that `kubernetes-validate` ships (strict:
unknown fields fail), for the oldest Kubernetes we support and the newest the package knows; the
kustomization rendered by `kubectl kustomize` where kubectl is installed; and against the code
and the image: one image, the port of `Config().bind`, exactly the variables `Config.from_env`
reads, the image's unprivileged user.
"""

from __future__ import annotations

import copy
import shutil
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from tests.deploy.files import (
    DEPLOYMENTS,
    IMAGE,
    K8S,
    K8S_VERSIONS,
    SECRET_ENV_FILE,
    SECRET_NAME,
    WEB_COMMAND,
    WORKER_COMMAND,
    all_resources,
    app_containers,
    app_services,
    config_env_names,
    default_port,
    default_web_port,
    documents,
    image_repository,
    instructions,
    kustomization,
    manifest_files,
    pod_specs,
    resources_of,
    stages,
)


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
    (work / SECRET_ENV_FILE).write_text(
        "VERRATER_TOKEN_SECRET=not-a-real-secret\nRABBITMQ_DEFAULT_PASS=not-a-password\n"
        "VERRATER_BROKER_URL=amqp://verrater:not-a-password@verrater-rabbitmq:5672//\n"
    )
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
        ports = {entry["name"]: entry for entry in container["ports"]}
        assert ports["metrics"]["containerPort"] == METRICS_PORT, name
        if container["args"] == WORKER_COMMAND:
            assert set(ports) == {"metrics"}
            assert "exec" in container["livenessProbe"], name
            continue
        if container["args"] == WEB_COMMAND:
            continue  # HTTP: test_the_web_door_serves_http_on_its_port
        container_port = ports["grpc"]
        assert container_port["containerPort"] == port, name
        for probe in ("startupProbe", "readinessProbe"):
            assert container[probe]["grpc"] == {"port": port}, (name, probe)
        # Liveness asks for a name that stays SERVING while the store is away (readiness: "").
        assert container["livenessProbe"]["grpc"] == {"port": port, "service": "liveness"}, name
        service = services[name]
        (service_port,) = service["spec"]["ports"]
        assert service_port["port"] == port
        assert service_port["targetPort"] in {port, container_port["name"]}
        template_labels = resources_of("Deployment")[name]["spec"]["template"]["metadata"]
        assert service["spec"]["selector"].items() <= template_labels["labels"].items()
    config = resources_of("ConfigMap")["verrater-config"]["data"]
    assert config["VERRATER_BIND"] == f"0.0.0.0:{port}"
    assert config["VERRATER_GAME_ADDR"] == f"dns:///verrater-game-pods:{port}"
    headless = services["verrater-game-pods"]["spec"]
    assert headless["clusterIP"] == "None"
    assert headless["selector"] == services["verrater-game"]["spec"]["selector"]
    assert services["verrater-game"]["spec"]["ports"][0]["port"] == port


METRICS_PORT = 9100


def test_every_pod_is_scraped_where_its_metrics_are_served() -> None:
    config = resources_of("ConfigMap")["verrater-config"]["data"]
    assert int(config["VERRATER_METRICS_PORT"]) == METRICS_PORT
    for name, deployment in resources_of("Deployment").items():
        annotations = deployment["spec"]["template"]["metadata"]["annotations"]
        assert annotations["prometheus.io/scrape"] == "true", name
        assert int(annotations["prometheus.io/port"]) == METRICS_PORT, name
        assert annotations["prometheus.io/path"] == "/metrics", name


def test_k8s_environment_is_exactly_what_config_reads() -> None:
    names = config_env_names()
    config = resources_of("ConfigMap")["verrater-config"]["data"]
    assert set(config) <= names
    secret_keys: set[str] = set()
    for name, container in app_containers().items():
        assert [source["configMapRef"]["name"] for source in container["envFrom"]] == [
            "verrater-config"
        ], name
        for env in container.get("env", []):
            assert env["name"] in names, (name, env["name"])
            ref = env["valueFrom"]["secretKeyRef"]
            assert ref["name"] == SECRET_NAME
            assert ref["key"] == env["name"]
            secret_keys.add(ref["key"])
    assert secret_keys == {"VERRATER_TOKEN_SECRET", "VERRATER_BROKER_URL"}
    assert set(config) | secret_keys == names
    assert not set(config) & secret_keys, "the secret must not sit in the ConfigMap"
    for spec in pod_specs().values():
        assert spec["enableServiceLinks"] is False  # no injected VERRATER_*_PORT variables


def test_the_web_door_serves_http_on_its_port() -> None:
    """`serve web` on the port of VERRATER_WEB_BIND, probed over HTTP, reaching the services by
    their names; it needs no token secret (the services check every token)."""
    container = app_containers()["verrater-web"]
    port = default_web_port()
    container_port = {entry["name"]: entry for entry in container["ports"]}["http"]
    assert container_port["containerPort"] == port
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        check = container[probe]["httpGet"]
        assert check["path"] == "/healthz", probe
        assert check["port"] in {port, container_port["name"]}, probe
    assert "env" not in container, "the door holds no secret"
    (service_port,) = resources_of("Service")["verrater-web"]["spec"]["ports"]
    assert service_port["port"] == port
    config = resources_of("ConfigMap")["verrater-config"]["data"]
    assert config["VERRATER_WEB_BIND"] == f"0.0.0.0:{port}"
    grpc_port = default_port()
    assert config["VERRATER_LOBBY_ADDR"] == f"verrater-lobby:{grpc_port}"
    assert config["VERRATER_AI_ADDR"] == f"verrater-ai:{grpc_port}"
    services = resources_of("Service")
    for name in ("verrater-lobby", "verrater-ai", "verrater-game"):
        assert services[name]["spec"]["ports"][0]["port"] == grpc_port


def test_the_token_secret_comes_from_an_uncommitted_file() -> None:
    (generator,) = kustomization()["secretGenerator"]
    assert generator["name"] == SECRET_NAME
    assert generator["envs"] == [SECRET_ENV_FILE]
    assert SECRET_ENV_FILE in (K8S / ".gitignore").read_text().split()
    assert not resources_of("Secret"), "no secret values in the repository"


def test_redis_is_a_stateful_set_with_aof_on_a_volume() -> None:
    redis = resources_of("StatefulSet")["verrater-redis"]
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
