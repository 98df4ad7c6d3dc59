"""What the rest of the service needs of the two models, as protocols: the spaCy extractor and the
MiniLM embedder satisfy them, and unit tests hand in small stand-ins (tests/fakes.py) to test
ranking stages without loading a model. End-to-end tests always use the real models."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from extraction.model import Extraction


class TextEmbedder(Protocol):
    model_id: str
    dimensions: int

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """L2-normalised vectors, one row per text."""
        ...

    def embed_one(self, text: str) -> npt.NDArray[np.float32]:
        """One text's vector, as `embed` would give it, by the path fastest for a single text."""
        ...


class TextExtractor(Protocol):
    @property
    def name(self) -> str:
        """The pipeline's name and version, for /healthz."""
        ...

    def extract_many(self, items: Sequence[tuple[str, str | None]]) -> list[Extraction]:
        """One Extraction per (text, speaker), in order."""
        ...

    def extract(self, text: str, speaker: str | None = None) -> Extraction:
        """One message as a question: with its parts, which `extract_many` leaves out."""
        ...

    def reported_many(
        self, items: Sequence[tuple[str, str]], listeners: Mapping[str, str] | None = None
    ) -> list[str]:
        """Each (sentence, speaker) in the third person (extraction/voice.py); `listeners` maps a
        speaker to the one "you" is."""
        ...
