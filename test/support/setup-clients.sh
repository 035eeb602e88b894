#!/usr/bin/env bash
# Installs the official Python Zulip client into a private virtualenv, for the tests that drive
# the server with a real Zulip client. Idempotent and quick when already done.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=node_modules/.cache/zulip-python
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import zulip" 2>/dev/null; then exit 0; fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "zulip==0.9.1"
