# syntax=docker/dockerfile:1
#
# One image for every process of Verräter Online (the entry point is the `verrater` command):
#   docker run IMAGE                      all services in one process, in memory (embedded mode),
#                                         with the browser's door and the page on port 8080
#   docker run IMAGE serve game|lobby|ai  one gRPC service (distributed mode: REDIS_URL, ...)
#   docker run IMAGE serve web            the browser's door alone (VERRATER_LOBBY_ADDR, ...)
#   docker run IMAGE worker               the Celery workers that run the bots
# Configuration is the environment (services/bootstrap.py, Config.from_env); see docs/OPERATING.md.

ARG PYTHON_VERSION=3.11

# --- builder: the project as a wheel, installed with its dependencies into /opt/verrater -------
FROM python:${PYTHON_VERSION}-slim AS builder

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1

WORKDIR /src
RUN python -m venv /opt/verrater

# Dependencies first, from pyproject.toml alone, so a code change does not reinstall grpcio.
COPY pyproject.toml README.md ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > /tmp/requirements.txt \
 && /opt/verrater/bin/pip install --requirement /tmp/requirements.txt

COPY services ./services
RUN python -m pip wheel --no-deps --wheel-dir /wheels . \
 && /opt/verrater/bin/pip install --no-deps /wheels/*.whl

# --- runtime: slim Python, the virtualenv, an unprivileged user ------------------------------
FROM python:${PYTHON_VERSION}-slim AS runtime

LABEL org.opencontainers.image.title="verrater-online" \
      org.opencontainers.image.description="Event-sourced gRPC backend for the card game Verräter" \
      org.opencontainers.image.licenses="MIT"

# VERRATER_BIND, VERRATER_WEB_BIND: inside a container the servers must listen on every
# interface (the code's defaults, 127.0.0.1:50051 and :8080, are unreachable from outside the
# container). Same ports: 50051 (gRPC) and 8080 (the browser's door, HTTP).
ENV PATH="/opt/verrater/bin:${PATH}" \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    VERRATER_BIND=0.0.0.0:50051 \
    VERRATER_WEB_BIND=0.0.0.0:8080

RUN groupadd --system --gid 10001 verrater \
 && useradd --system --uid 10001 --gid verrater --no-create-home --home-dir /nonexistent \
            --shell /usr/sbin/nologin verrater

COPY --from=builder /opt/verrater /opt/verrater

# The health check speaks the gRPC health protocol (grpc.health.v1) to this container's own
# server, on the port of VERRATER_BIND. Exit 0 only for SERVING ("" = the whole server, or the
# service named as the first argument). Kubernetes ignores it and probes natively (deploy/k8s).
COPY --chmod=0755 <<'EOF' /usr/local/bin/verrater-healthcheck
#!/opt/verrater/bin/python
import os
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

port = os.environ.get("VERRATER_BIND", "0.0.0.0:50051").rsplit(":", 1)[1]
service = sys.argv[1] if len(sys.argv) > 1 else ""
try:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service=service), timeout=2.0
        )
except grpc.RpcError as error:
    sys.exit(f"unhealthy: {error.code().name}")
if reply.status != health_pb2.HealthCheckResponse.SERVING:
    sys.exit(f"unhealthy: {health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)}")
EOF

# Numeric, so Kubernetes' runAsNonRoot can verify it without a passwd lookup.
USER 10001:10001
WORKDIR /tmp

EXPOSE 50051 8080

HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 \
    CMD ["verrater-healthcheck"]

ENTRYPOINT ["verrater"]
CMD ["serve"]
