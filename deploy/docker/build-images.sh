#!/usr/bin/env bash
# Builds the five service images from deploy/docker/Dockerfile (run from anywhere).
#
#   REGISTRY=registry.example.com/svc-gateway TAG=0.1.0 deploy/docker/build-images.sh [--push]
#
# REGISTRY defaults to svc-gateway, TAG to the version in package.json. Images are
# $REGISTRY/<app>:$TAG, the names the Helm chart expects (image.registry + <service>.image.repository).
set -euo pipefail
cd "$(dirname "$0")/../.."

REGISTRY="${REGISTRY:-svc-gateway}"
TAG="${TAG:-$(node -p 'require("./package.json").version')}"
PUSH="${1:-}"

# app:port — the port is the default of the app's port variable (README "Configuration").
APPS=(
  gateway:8002
  gateway-admin:8003
  org-api:8001
  webhook-dispatcher:8005
  runner-control-plane:8004
)

for entry in "${APPS[@]}"; do
  app="${entry%%:*}"
  port="${entry##*:}"
  image="${REGISTRY}/${app}:${TAG}"
  echo "=== ${image}"
  docker build -f deploy/docker/Dockerfile --build-arg "APP=${app}" --build-arg "PORT=${port}" -t "${image}" .
  if [ "${PUSH}" = "--push" ]; then docker push "${image}"; fi
done
