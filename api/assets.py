"""The web pages' third-party scripts and styles, installed at setup from the npm registry.

GET /explore (cytoscape.js and its fcose layout) and GraphiQL at GET /graphql (React, GraphiQL, its
explorer plugin) load nothing from another host: the service serves these files itself from
api/web/vendor/ (git-ignored). `python -m api.assets` — run by `make setup` — fills that folder:
for each package pinned in api/web/assets.lock.json it downloads the tarball from the npm
registry, checks it against the pinned sha512 `integrity` (the registry's own value for that
version) before reading it, and extracts only the files the lock names. No Node, no npm, nothing
at run time: a service without the files still starts, and its pages say how to install them.

`python -m api.assets --lock` rewrites the integrity values from the registry's metadata for the
pinned versions (after a version bump in the lock); review the diff before committing it.

Standard library only, so it runs before the package is installed. Imports nothing of the project.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import shutil
import sys
import tarfile
import tempfile
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

WEB = Path(__file__).resolve().parent / "web"
LOCK = WEB / "assets.lock.json"
VENDOR = WEB / "vendor"
REGISTRY = "https://registry.npmjs.org"
INSTALL_HINT = "run `make setup` (or `.venv/bin/python -m api.assets`) in the repository"
STAMP = ".installed"

Fetch = Callable[[str], bytes]


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    license: str
    integrity: str
    files: dict[str, str]  # path in the tarball -> path under vendor/

    @property
    def tarball(self) -> str:
        """The registry's tarball URL: a scoped name's file carries the name without its scope."""
        base = self.name.rpartition("/")[2]
        return f"{REGISTRY}/{self.name}/-/{base}-{self.version}.tgz"


class AssetError(Exception):
    """A download that fails its integrity check, or a tarball without a pinned file."""


def load_lock(path: Path = LOCK) -> list[Package]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return [
        Package(p["name"], p["version"], p["license"], p["integrity"], dict(p["files"]))
        for p in raw["packages"]
    ]


def served_paths(packages: Sequence[Package]) -> list[str]:
    """Every file the pages may load, relative to vendor/."""
    return [target for p in packages for target in p.files.values()]


def missing(vendor: Path = VENDOR, lock: Path = LOCK) -> list[str]:
    """The pinned files not installed under `vendor` (empty once `make setup` ran)."""
    return [f for f in served_paths(load_lock(lock)) if not (vendor / f).is_file()]


def check_integrity(data: bytes, integrity: str, what: str) -> None:
    """Subresource-integrity check as npm does it: `sha512-<base64 digest>`."""
    algorithm, _, expected = integrity.partition("-")
    if algorithm != "sha512":
        raise AssetError(f"{what}: integrity {integrity!r} is not sha512; pin the sha512 value")
    actual = base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")
    if actual != expected:
        raise AssetError(f"{what}: sha512 is {actual}, the lock pins {expected}; refusing it")


def extract(package: Package, data: bytes, into: Path) -> None:
    """Writes the pinned files of one verified tarball under `into`; nothing else is read out."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for source, target in package.files.items():
            try:
                member = archive.getmember(source)
            except KeyError:
                raise AssetError(f"{package.name}@{package.version} has no {source}") from None
            handle = archive.extractfile(member) if member.isfile() else None
            if handle is None:
                raise AssetError(f"{package.name}@{package.version}: {source} is not a file")
            destination = into / target
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(handle.read())


def _download(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 - the npm registry
        body: bytes = response.read()
        return body


def _stamp(lock: Path) -> str:
    return hashlib.sha256(lock.read_bytes()).hexdigest()


def install(
    vendor: Path = VENDOR, lock: Path = LOCK, fetch: Fetch = _download, quiet: bool = False
) -> bool:
    """Installs the pinned files into `vendor`; False when they were there already. All or
    nothing: the files go to a temporary folder that replaces `vendor` once every one passed."""
    stamp = vendor / STAMP
    if stamp.is_file() and stamp.read_text() == _stamp(lock) and not missing(vendor, lock):
        stamp.touch()  # newer than the lock again, so make sees it up to date
        return False
    vendor.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".vendor-", dir=vendor.parent))
    try:
        for package in load_lock(lock):
            what = f"{package.name}@{package.version}"
            data = fetch(package.tarball)
            check_integrity(data, package.integrity, what)
            extract(package, data, staging)
            if not quiet:
                print(f"  {what} ({package.license}): {len(package.files)} files", file=sys.stderr)
        (staging / STAMP).write_text(_stamp(lock))
        if vendor.exists():
            shutil.rmtree(vendor)
        staging.rename(vendor)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return True


def relock(lock: Path = LOCK, fetch: Fetch = _download) -> None:
    """Rewrites each package's integrity from the registry's metadata of its pinned version."""
    raw = json.loads(lock.read_text(encoding="utf-8"))
    for entry in raw["packages"]:
        meta = json.loads(fetch(f"{REGISTRY}/{entry['name']}/{entry['version']}"))
        entry["integrity"] = meta["dist"]["integrity"]
        entry["license"] = meta.get("license", entry["license"])
    lock.write_text(json.dumps(raw, indent=2) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lock", action="store_true", help="refresh integrity values instead")
    parser.add_argument("--vendor", type=Path, default=VENDOR, help="where to install the files")
    args = parser.parse_args(argv)
    try:
        if args.lock:
            relock()
            print(f"rewrote {LOCK}", file=sys.stderr)
        elif install(args.vendor):
            print(f"web assets installed in {args.vendor}", file=sys.stderr)
    except (AssetError, OSError) as exc:
        print(f"web assets: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
