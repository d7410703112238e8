"""`qbank gpu`: list and run the GPU probes, appending evidence records."""

from __future__ import annotations

import datetime
import sys
from pathlib import Path
from typing import Any

import click

from qbank.commands.common import say


@click.group()
def gpu() -> None:
    """Probe GPU numerics and record the evidence that device claims are audited against."""


@gpu.command("list")
def gpu_list() -> None:
    """List the probes."""
    from qbank.gpu.probes import REGISTRY

    for p in REGISTRY.values():
        click.echo(f"{p.id:40} {p.kind:24} {p.doc}")


@gpu.command("probe")
@click.argument("probe_ids", nargs=-1)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("evidence/gpu"),
    show_default=True,
    help="Evidence folder: records go to OUT/<device_class>/<probe_id>.jsonl.",
)
@click.option(
    "--backend",
    type=click.Choice(["auto", "cuda", "cpu", "torch-cpu"]),
    default="auto",
    show_default=True,
    help="cuda needs a GPU with cupy and torch; cpu is the numpy reference; torch-cpu runs the torch "
    "probes with torch on the CPU (both device class `cpu`); auto is cuda, else cpu.",
)
def gpu_probe(probe_ids: tuple[str, ...], out: Path, backend: str) -> None:
    """Run probes (default: all) and append one evidence record per run."""
    from qbank import atomic
    from qbank.gpu import evidence, probes
    from qbank.gpu.backends import CpuBackend, Unavailable

    unknown = [p for p in probe_ids if p not in probes.REGISTRY]
    if unknown:
        raise click.UsageError(f"unknown probe {unknown[0]!r}; see qbank gpu list")
    try:
        runner = _gpu_backend(backend)
    except Unavailable as exc:
        raise click.UsageError(str(exc)) from None
    info = runner.info()
    say(f"backend {runner.name}: {info['device']['name']} ({info['device']['device_class']})")
    now = datetime.datetime.now(datetime.UTC)
    chosen = [probes.REGISTRY[p] for p in probe_ids] if probe_ids else list(probes.REGISTRY.values())
    skipped = 0
    for p in chosen:
        try:
            result = probes.run(runner, p)
        except Unavailable as exc:
            say(f"{p.id:40} not run: {exc}")
            skipped += 1
            continue
        try:
            written = evidence.append(out, evidence.record(p, info, result, now))
        except atomic.WriteError as exc:
            raise click.UsageError(str(exc)) from None
        controls = " ".join(f"{k}={v}" for k, v in result["controls"].items())
        say(f"{p.id:40} {result['verdict']:12} {controls}  -> {written}")
    if isinstance(runner, CpuBackend) and backend == "auto":
        click.echo("note: no usable GPU; the numpy reference ran instead (device class cpu)", err=True)
    sys.exit(1 if skipped and backend == "cuda" else 0)  # elsewhere some probes cannot run by design


def _gpu_backend(name: str) -> Any:
    from qbank.gpu.backends import CpuBackend, Unavailable

    if name == "cpu":
        return CpuBackend()
    if name == "torch-cpu":
        from qbank.gpu.torch_ops import TorchCpuBackend

        return TorchCpuBackend()
    from qbank.gpu.cuda import CudaBackend

    try:
        return CudaBackend()
    except Unavailable:
        if name == "cuda":
            raise
        return CpuBackend()
