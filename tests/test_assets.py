"""api/assets.py: the pages' third-party files come only from tarballs whose sha512 matches the
lock, only the files the lock names are extracted, an install is all or nothing, and the lock
itself pins every package the pages load. Downloads are replaced by an in-memory registry."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from api import assets


def _tarball(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


class Registry:
    """Serves tarballs by URL and counts the downloads."""

    def __init__(self) -> None:
        self.tarballs: dict[str, bytes] = {}
        self.fetched: list[str] = []

    def __call__(self, url: str) -> bytes:
        self.fetched.append(url)
        return self.tarballs[url]


@pytest.fixture
def registry(tmp_path: Path) -> tuple[Registry, Path]:
    """A registry holding one scoped and one plain package, and a lock pinning them."""
    reg = Registry()
    lib = _tarball(
        {
            "package/dist/lib.min.js": b"window.lib = 1;",
            "package/LICENSE": b"MIT",
            "package/postinstall.js": b"evil()",
        }
    )
    plugin = _tarball({"package/dist/index.umd.js": b"window.plugin = 1;"})
    reg.tarballs["https://registry.npmjs.org/lib/-/lib-1.0.0.tgz"] = lib
    reg.tarballs["https://registry.npmjs.org/@scope/plugin/-/plugin-2.0.0.tgz"] = plugin
    lock = tmp_path / "assets.lock.json"
    packages = [
        {
            "name": "lib",
            "version": "1.0.0",
            "license": "MIT",
            "integrity": _integrity(lib),
            "files": {
                "package/dist/lib.min.js": "lib/lib.min.js",
                "package/LICENSE": "lib/LICENSE",
            },
        },
        {
            "name": "@scope/plugin",
            "version": "2.0.0",
            "license": "MIT",
            "integrity": _integrity(plugin),
            "files": {"package/dist/index.umd.js": "plugin/index.umd.js"},
        },
    ]
    lock.write_text(json.dumps({"packages": packages}))
    return reg, lock


def test_install_extracts_only_the_pinned_files(registry: tuple[Registry, Path]) -> None:
    reg, lock = registry
    vendor = lock.parent / "vendor"
    assert assets.missing(vendor, lock) == ["lib/lib.min.js", "lib/LICENSE", "plugin/index.umd.js"]
    assert assets.install(vendor, lock, fetch=reg, quiet=True)
    files = sorted(p.relative_to(vendor).as_posix() for p in vendor.rglob("*") if p.is_file())
    assert files == [".installed", "lib/LICENSE", "lib/lib.min.js", "plugin/index.umd.js"]
    assert (vendor / "lib" / "lib.min.js").read_bytes() == b"window.lib = 1;"
    assert assets.missing(vendor, lock) == []
    # installed already: nothing is downloaded again
    assert not assets.install(vendor, lock, fetch=reg, quiet=True)
    assert len(reg.fetched) == 2


def test_a_tarball_that_fails_its_hash_installs_nothing(registry: tuple[Registry, Path]) -> None:
    reg, lock = registry
    url = "https://registry.npmjs.org/@scope/plugin/-/plugin-2.0.0.tgz"
    reg.tarballs[url] = _tarball({"package/dist/index.umd.js": b"window.plugin = 'changed';"})
    vendor = lock.parent / "vendor"
    with pytest.raises(assets.AssetError, match=r"@scope/plugin@2\.0\.0: sha512 is .* refusing"):
        assets.install(vendor, lock, fetch=reg, quiet=True)
    assert not vendor.exists(), "all or nothing: the verified first package was not kept either"
    assert list(lock.parent.glob(".vendor-*")) == []


def test_a_pinned_file_missing_from_its_tarball_is_an_error(
    registry: tuple[Registry, Path],
) -> None:
    reg, lock = registry
    raw = json.loads(lock.read_text())
    raw["packages"][0]["files"]["package/dist/gone.js"] = "lib/gone.js"
    lock.write_text(json.dumps(raw))
    with pytest.raises(assets.AssetError, match=r"lib@1\.0\.0 has no package/dist/gone\.js"):
        assets.install(lock.parent / "vendor", lock, fetch=reg, quiet=True)


def test_only_sha512_is_accepted() -> None:
    with pytest.raises(assets.AssetError, match="is not sha512"):
        assets.check_integrity(
            b"x", "sha1-" + base64.b64encode(hashlib.sha1(b"x").digest()).decode(), "x"
        )


def test_relock_takes_the_registrys_integrity(registry: tuple[Registry, Path]) -> None:
    reg, lock = registry
    meta = {"dist": {"integrity": "sha512-new"}, "license": "MIT"}
    reg.tarballs["https://registry.npmjs.org/lib/1.0.0"] = json.dumps(meta).encode()
    reg.tarballs["https://registry.npmjs.org/@scope/plugin/2.0.0"] = json.dumps(meta).encode()
    assets.relock(lock, fetch=reg)
    assert {p.integrity for p in assets.load_lock(lock)} == {"sha512-new"}


def test_the_lock_pins_every_package_by_version_and_sha512() -> None:
    packages = assets.load_lock()
    names = {p.name for p in packages}
    assert {"cytoscape", "cytoscape-fcose", "react", "react-dom", "graphiql"} <= names
    for package in packages:
        assert package.integrity.startswith("sha512-") and len(package.integrity) == 95
        assert package.version.count(".") == 2 and package.license == "MIT"
        assert package.tarball.startswith(f"https://registry.npmjs.org/{package.name}/-/")
    paths = assets.served_paths(packages)
    assert len(paths) == len(set(paths)), "two packages write the same file"
    scoped = next(p for p in packages if p.name == "@graphiql/plugin-explorer")
    assert scoped.tarball.endswith("/@graphiql/plugin-explorer/-/plugin-explorer-1.0.2.tgz")
