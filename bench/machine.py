"""The machine a bench ran on, printed beside every table: the models' speed changes two- or
threefold between CPUs (with or without AVX2 and AVX-512), our own overhead does not, so a ratio
means something only with the CPU named."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def describe() -> str:
    """ "AMD EPYC 9B14, 2 cores, AVX2 yes, AVX-512 yes" (what /proc/cpuinfo says)."""
    model, flags = platform.processor() or "unknown CPU", set()
    info = Path("/proc/cpuinfo")
    if info.exists():
        for line in info.read_text(encoding="utf-8", errors="replace").splitlines():
            name, _, value = line.partition(":")
            if name.strip() == "model name" and model in {"", "unknown CPU", platform.processor()}:
                model = value.strip()
            elif name.strip() == "flags" and not flags:
                flags = set(value.split())
    avx2 = "yes" if "avx2" in flags else "no"
    avx512 = "yes" if any(f.startswith("avx512") for f in flags) else "no"
    return f"{model}, {os.cpu_count()} cores, AVX2 {avx2}, AVX-512 {avx512}"
