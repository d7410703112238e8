"""The tables drills are rendered from: the bank's sourced hardware table and model table."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from qbank import load
from qbank.finding import Finding
from qbank.model.hardware import HardwareTable

MODELS_FILE = "models.yaml"
_MODEL_FIELDS = ("name", "params", "layers", "hidden", "heads", "kv_heads", "head_dim", "context", "source")


@dataclass(frozen=True)
class Model:
    key: str
    name: str
    params: Fraction  # billions
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    context: int
    source: str


@dataclass(frozen=True)
class Tables:
    hardware: HardwareTable
    models: dict[str, Model]

    def devices(self, *classes: str) -> list[Any]:
        return [d for d in self.hardware.devices.values() if d.raw.get("class") in classes]


def load_models(schema_dir: Path) -> dict[str, Model]:
    """schema/models.yaml; ValueError if it is missing or malformed (the generator fails closed)."""
    document = load.from_path(schema_dir / MODELS_FILE, MODELS_FILE)
    if isinstance(document, Finding):
        raise ValueError(f"{MODELS_FILE}: {document.message}")
    models = {}
    for key, entry in (document.data.get("models") or {}).items():
        if not isinstance(entry, dict) or set(entry) != set(_MODEL_FIELDS):
            raise ValueError(f"{MODELS_FILE}: models.{key} needs exactly {', '.join(_MODEL_FIELDS)}")
        values = {f: entry[f] for f in _MODEL_FIELDS}
        values["params"] = Fraction(str(values["params"]))
        models[key] = Model(key, **values)
    if not models:
        raise ValueError(f"{MODELS_FILE}: no models")
    return models
