#!/bin/sh
# Prints a fresh secrets.env for kustomization.yaml's secretGenerator:
#   deploy/k8s/make-secrets.sh > deploy/k8s/secrets.env
set -eu
broker_password="$(openssl rand -hex 24)"
printf 'VERRATER_TOKEN_SECRET=%s\n' "$(openssl rand -hex 32)"
printf 'RABBITMQ_DEFAULT_PASS=%s\n' "$broker_password"
printf 'VERRATER_BROKER_URL=amqp://verrater:%s@verrater-rabbitmq:5672//\n' "$broker_password"
