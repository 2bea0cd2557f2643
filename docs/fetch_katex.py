"""Fetch the KaTeX that the documentation site typesets its math with (``make katex``).

The site loads nothing from outside itself, so KaTeX is committed under ``docs/vendor/katex/``:
exactly the files the pages use (``katex.min.js``, ``katex.min.css``, the woff2 fonts) and its
MIT licence. This script re-creates that directory from the npm registry: ``npm pack`` downloads
the package of version :data:`VERSION`, whose tarball must match :data:`INTEGRITY` (npm's
sha512, as ``npm view katex@VERSION dist.integrity`` prints it) before anything is unpacked.
To move to another version, change both constants and run ``make katex``.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSION = "0.19.1"
INTEGRITY = ("sha512-jG8uKntjSEcm2EpQOh0XturpPuuC9r3Sq5HLHdsFdWZT27E672SF19QEi+of0/YeOy15lDgRhKvr"
             "5614uRrEfA==")
DESTINATION = Path(__file__).resolve().parent / "vendor" / "katex"
# tarball path -> path under DESTINATION
WANTED = {"package/LICENSE": "LICENSE", "package/dist/katex.min.js": "katex.min.js",
          "package/dist/katex.min.css": "katex.min.css"}
FONTS = "package/dist/fonts/"


def integrity(data: bytes) -> str:
    """The npm integrity string (Subresource Integrity, sha512) of ``data``."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def target(name: str) -> str | None:
    """Where the tarball's file ``name`` goes under the destination (None: not wanted)."""
    if name.startswith(FONTS) and name.endswith(".woff2"):
        return "fonts/" + name.removeprefix(FONTS)
    return WANTED.get(name)


def fetch(destination: Path = DESTINATION) -> list[Path]:
    """Replace ``destination`` by the wanted files of katex :data:`VERSION`; the files written."""
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(["npm", "pack", f"katex@{VERSION}", "--pack-destination", scratch,
                        "--silent"], check=True, stdout=subprocess.DEVNULL)
        tarball = Path(scratch) / f"katex-{VERSION}.tgz"
        found = integrity(tarball.read_bytes())
        if found != INTEGRITY:
            sys.exit(f"{tarball.name}: integrity {found}, expected {INTEGRITY}")
        with tarfile.open(tarball) as archive:
            members = [member for member in archive.getmembers()
                       if member.isfile() and target(member.name) is not None]
            missing = set(WANTED) - {member.name for member in members}
            if missing or not any(member.name.startswith(FONTS) for member in members):
                sys.exit(f"{tarball.name}: no {', '.join(sorted(missing)) or FONTS + '*.woff2'}")
            if destination.exists():
                shutil.rmtree(destination)
            written = []
            for member in members:
                path = destination / str(target(member.name))
                path.parent.mkdir(parents=True, exist_ok=True)
                source = archive.extractfile(member)
                assert source is not None  # a regular file
                path.write_bytes(source.read())
                written.append(path)
    return sorted(written)


if __name__ == "__main__":
    files = fetch()
    size = sum(path.stat().st_size for path in files)
    print(f"katex {VERSION}: {len(files)} files, {size / 1000:.0f} kB in {DESTINATION}")
