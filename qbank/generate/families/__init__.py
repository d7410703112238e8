"""The registry of drill families: each renders questions for some (track, level) cells."""

from __future__ import annotations

from qbank.generate import Family
from qbank.generate.families import cluster, fleet, llm, numerics, tiny

FAMILIES = (
    Family(
        "weights-fit", 2, llm.WEIGHTS_CELLS, llm.weights_fit, "Do a model's weights fit a device's memory?"
    ),
    Family("kv-cache", 2, llm.KV_CELLS, llm.kv_cache, "KV-cache bytes per token and concurrent sequences."),
    Family(
        "decode-speed", 2, llm.DECODE_CELLS, llm.decode_speed, "Memory-bound tokens per second at batch 1."
    ),
    Family("roofline-ridge", 2, llm.RIDGE_CELLS, llm.ridge, "Ridge point and arithmetic intensity."),
    Family(
        "optimizer-state",
        2,
        cluster.STATE_CELLS,
        cluster.optimizer_state,
        "Mixed-precision Adam state per parameter and GPUs to hold it.",
    ),
    Family(
        "training-time", 2, cluster.TIME_CELLS, cluster.training_time, "6*N*D FLOPs over cluster throughput."
    ),
    Family(
        "allreduce",
        2,
        cluster.ALLREDUCE_CELLS,
        cluster.allreduce,
        "Ring all-reduce time for a gradient sync.",
    ),
    Family("mcu-fit", 2, tiny.FIT_CELLS, tiny.mcu_fit, "INT8 weights in flash, the tensor arena in SRAM."),
    Family("mcu-latency", 2, tiny.LATENCY_CELLS, tiny.mcu_latency, "MACs over clock: latency and CPU load."),
    Family(
        "battery-life",
        2,
        tiny.BATTERY_CELLS,
        tiny.battery_life,
        "Duty-cycled average current and battery life.",
    ),
    Family(
        "carbon",
        2,
        fleet.CARBON_CELLS,
        fleet.carbon,
        "Facility energy and location-based emissions of a GPU job.",
    ),
    Family(
        "serving-fleet",
        2,
        fleet.FLEET_CELLS,
        fleet.serving_fleet,
        "GPUs and monthly cost to serve a peak load.",
    ),
    Family(
        "feature-energy",
        2,
        fleet.ENERGY_CELLS,
        fleet.feature_energy,
        "Energy per use and per day on a device.",
    ),
    Family("checkpoint", 2, cluster.CKPT_CELLS, cluster.checkpoint, "Checkpoint size and write time."),
    Family(
        "format-range",
        2,
        numerics.CELLS,
        numerics.format_range,
        "Where a value lands in FP16, BF16 and FP8, and which scale fits a tensor.",
    ),
)
BY_NAME = {f.name: f for f in FAMILIES}
