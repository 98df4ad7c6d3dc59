"""Text → entities and relations (spaCy), and text → vectors (MiniLM).

Plain data in, plain data out: must not import `graph` or `api`.

spaCy's machine-learning library, thinc, imports torch on its own import whenever torch is
installed, for wrappers of torch models that our pipeline (en_core_web_sm: thinc's own numpy
layers) never uses: 1.1 s of every command, and a one-shot command embeds its message through
onnxruntime without torch (extraction/embedder.py). So thinc is imported here, before anything of
this package imports spaCy, with torch hidden from it: thinc records that it has no torch, and
torch imports as usual afterwards (the eager embedder loads it for batches). thinc's torch
interop (spacy-transformers, the `_trf` pipelines) is off for the whole process, which uses
neither. A process that has imported torch already is left as it is.
"""

from __future__ import annotations

import sys

if "thinc" not in sys.modules and "torch" not in sys.modules:
    sys.modules["torch"] = None  # type: ignore[assignment]  # `import torch` raises ImportError
    try:
        import thinc.compat  # noqa: F401
    finally:
        if sys.modules.get("torch", 0) is None:
            del sys.modules["torch"]
