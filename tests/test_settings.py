"""Settings: every field has one RECOLLECT_* variable, README lists each, casts fail by name."""

from __future__ import annotations

import os
import re
from dataclasses import fields
from pathlib import Path

import pytest

from api.settings import ENVIRONMENT, Settings
from extraction.embedder import model_threads
from graph.limits import Limits

README = Path(__file__).resolve().parents[1] / "README.md"


def test_every_setting_has_a_variable_and_readme_lists_it() -> None:
    assert set(ENVIRONMENT) == {f.name for f in fields(Settings)}
    documented = set(re.findall(r"`(RECOLLECT_[A-Z_]+)`", README.read_text(encoding="utf-8")))
    assert set(ENVIRONMENT.values()) <= documented


def test_environment_overrides_defaults_and_overrides_win() -> None:
    env = {
        "RECOLLECT_PORT": "9000",
        "RECOLLECT_BOLT_PORT": "7688",
        "RECOLLECT_VECTOR_FLUSH_SECONDS": "0.5",
        "RECOLLECT_MAX_TOKEN_BUDGET": "4000",
        "RECOLLECT_DATA_DIR": "/tmp/x",
        "RECOLLECT_GRAPH_URI": "",
    }
    settings = Settings.from_env(env, port=9100, host=None)
    assert settings.port == 9100 and settings.host == "127.0.0.1"
    assert settings.bolt_port == 7688 and settings.vector_flush_seconds == 0.5
    assert settings.data_dir == Path("/tmp/x") and settings.graph_uri is None
    assert settings.limits == Limits(max_token_budget=4000)
    assert Settings.from_env({}) == Settings()


def test_a_bad_number_names_its_variable() -> None:
    with pytest.raises(ValueError, match="RECOLLECT_MAX_BATCH must be an integer, got 'lots'"):
        Settings.from_env({"RECOLLECT_MAX_BATCH": "lots"})
    with pytest.raises(ValueError, match="RECOLLECT_VECTOR_FLUSH_SECONDS must be a number"):
        Settings.from_env({"RECOLLECT_VECTOR_FLUSH_SECONDS": "soon"})


def test_a_cache_budget_or_namespace_out_of_range_names_its_variable() -> None:
    with pytest.raises(ValueError, match="RECOLLECT_CACHE_MB must be positive, got '0'"):
        Settings.from_env({"RECOLLECT_CACHE_MB": "0"})
    with pytest.raises(ValueError, match="RECOLLECT_NAMESPACE: namespace 'a b': use 1 to 40"):
        Settings.from_env({"RECOLLECT_NAMESPACE": "a b"})
    assert Settings.from_env({"RECOLLECT_CACHE_MB": "0.5"}).cache_mb == 0.5
    assert Settings.from_env({"RECOLLECT_NAMESPACE": "staging-2"}).namespace == "staging-2"


def test_torch_threads_default_leaves_spacy_a_core() -> None:
    with pytest.raises(ValueError, match="RECOLLECT_TORCH_THREADS must be 0 or more, got '-1'"):
        Settings.from_env({"RECOLLECT_TORCH_THREADS": "-1"})
    assert Settings.from_env({"RECOLLECT_TORCH_THREADS": "3"}).torch_threads == 3
    cores = len(os.sched_getaffinity(0))
    assert model_threads(0) == max(1, cores - 1)
    assert model_threads(3) == 3


def test_secrets_stay_out_of_repr() -> None:
    settings = Settings.from_env({"RECOLLECT_API_KEYS": "k=a", "RECOLLECT_GRAPH_PASSWORD": "pw"})
    assert "k=a" not in repr(settings) and "pw" not in repr(settings)
