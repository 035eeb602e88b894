#!/usr/bin/env python3
"""Builds shared/zulip-emoji-names.json, Zulip's emoji name table, from the PyPI package
zulip-emoji-mapping (its EMOJI_NAME_MAPS is the table Zulip generates in
tools/setup/emoji/emoji_names.py: one canonical name and any aliases per code point).

The JSON is kept in the repository, so the server downloads nothing at run time. To regenerate
it (for example after bumping VERSION and SHA256 below):

    python3 deploy/tools/zulip-emoji-names.py

Needs python3 and pip; writes nothing unless the downloaded wheel has the pinned hash and the
table passes the checks below.
"""

import hashlib
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PACKAGE = "zulip-emoji-mapping"
VERSION = "1.0.1"
WHEEL = "zulip_emoji_mapping-1.0.1-py3-none-any.whl"
SHA256 = "dc5f2d182e60f483e8e72286259e294e62f709e60016649f9c1efa953105e934"
OUT = Path(__file__).resolve().parents[2] / "shared" / "zulip-emoji-names.json"

CODE = re.compile(r"^[0-9a-f]{4,6}(-[0-9a-f]{4,6})*$")
NAME = re.compile(r"^[\w+-]+$")  # Zulip's Markdown emoji syntax: \w (Unicode), - and +


def load_table(tmp: Path) -> dict:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", str(tmp), f"{PACKAGE}=={VERSION}"],
        check=True,
    )
    wheel = tmp / WHEEL
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != SHA256:
        sys.exit(f"{WHEEL}: sha256 {digest}, expected {SHA256}")
    with zipfile.ZipFile(wheel) as z:
        z.extract("zulip_emoji_mapping/emoji_names.py", tmp)
    # The module is plain data (one dict literal); load it without importing the package.
    spec = importlib.util.spec_from_file_location("emoji_names", tmp / "zulip_emoji_mapping" / "emoji_names.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.EMOJI_NAME_MAPS


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        table = load_table(Path(tmp))
    names: dict[str, list[str]] = {}
    seen: dict[str, str] = {}
    for code, info in table.items():
        entry = [info["canonical_name"], *info["aliases"]]
        if not CODE.match(code) or "fe0f" in code.split("-"):
            sys.exit(f"unexpected code {code!r}")
        for name in entry:
            if not NAME.match(name):
                sys.exit(f"unexpected name {name!r} for {code}")
            if name in seen:
                sys.exit(f"name {name!r} belongs to {seen[name]} and {code}")
            seen[name] = code
        names[code] = entry
    head = {
        "source": f"PyPI {PACKAGE} {VERSION} ({WHEEL}, sha256 {SHA256}), zulip_emoji_mapping/emoji_names.py: "
        "EMOJI_NAME_MAPS, Zulip's tools/setup/emoji/emoji_names.py",
        "regenerate": "python3 deploy/tools/zulip-emoji-names.py",
        "format": "code point (lowercase hex, dash-joined, no FE0F) -> [canonical name, ...aliases]",
    }
    # One emoji a line, so that a regenerated table diffs readably.
    lines = [f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in head.items()]
    rows = [f"  {json.dumps(code)}: {json.dumps(entry, ensure_ascii=False)}" for code, entry in names.items()]
    OUT.write_text("{\n" + "\n".join(lines) + '\n "names": {\n' + ",\n".join(rows) + "\n }\n}\n")
    print(f"wrote {OUT}: {len(names)} emoji, {len(seen)} names")


if __name__ == "__main__":
    main()
