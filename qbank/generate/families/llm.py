"""LLM inference drills: weight memory, KV cache, memory-bound decode speed, the roofline ridge.

Formulas (standard, e.g. Kaplan et al. 2020 for FLOPs; Pope et al. 2022, "Efficiently Scaling
Transformer Inference", for KV-cache size and memory-bound decode):
  weights = parameters x bytes per parameter
  KV cache per token = 2 (K and V) x layers x KV heads x head dim x bytes per element
  decode time per token >= bytes read per step / memory bandwidth
  ridge point = peak FLOP/s / memory bandwidth (Williams et al. 2009, the roofline model)
"""

from __future__ import annotations

import random
from fractions import Fraction

from qbank.generate.draft import Draft
from qbank.generate.english import lower_first
from qbank.generate.families.common import CLOUD_TEAMS, CLOUD_USES, EDGE_USES, MOBILE_USES, pick, zone
from qbank.generate.numbers import ceil, fmt, prose, shown
from qbank.generate.tables import Model, Tables
from qbank.model.hardware import Device

BYTES = {
    "FP16": Fraction(2),
    "BF16": Fraction(2),
    "FP8": Fraction(1),
    "INT8": Fraction(1),
    "INT4": Fraction(1, 2),
}
CLOUD_GPUS = ("v100", "a100-40gb", "a100-80gb", "h100-sxm", "h100-pcie", "h200", "b200", "l4", "t4", "mi300x")
EDGE_SOCS = ("jetson-orin-nano", "jetson-orin-nx", "jetson-agx-orin")
# Phones only (issue 26): the Apple M2 is a laptop and tablet chip, listed as mobile-soc in the table.
PHONES = ("apple-a17-pro", "snapdragon-8-gen-3")
SMALL_MODELS = ("phi-3-mini", "llama-2-7b", "llama-3-8b", "mistral-7b", "qwen2-5-7b")


def _name(device: Device) -> str:
    return device.aliases[0] if device.key != "h100-sxm" else "H100 SXM"


def _memory_gb(device: Device) -> Fraction:
    return device.spec("memory").low / 10**9


def _setting(
    rng: random.Random, tables: Tables, track: str
) -> tuple[Device, Model, str, str, Fraction] | None:
    """Device, model, use, weight precision and the fraction of memory kept for everything else."""
    if track == "cloud":
        device = tables.hardware.devices[pick(rng, CLOUD_GPUS)]
        model = tables.models[pick(rng, sorted(tables.models))]
        precisions = ["FP16", "BF16", "INT8", "INT4"] + (
            ["FP8"] if "flops.fp8" in {s.field for s in device.specs} else []
        )
        use, reserve = pick(rng, CLOUD_USES), Fraction(pick(rng, (10, 15, 20, 25)), 100)
    elif track == "edge":
        device = tables.hardware.devices[pick(rng, EDGE_SOCS)]
        model = tables.models[pick(rng, SMALL_MODELS)]
        precisions, use, reserve = (
            ["FP16", "INT8", "INT4"],
            pick(rng, EDGE_USES),
            Fraction(pick(rng, (25, 30, 40)), 100),
        )
    elif track == "mobile":
        device = tables.hardware.devices[pick(rng, PHONES)]
        model = tables.models[pick(rng, SMALL_MODELS)]
        precisions, use, reserve = (
            ["INT8", "INT4"],
            pick(rng, MOBILE_USES),
            Fraction(pick(rng, (50, 60, 65)), 100),
        )
    else:
        return None
    return device, model, use, pick(rng, precisions), reserve


# --- weights-fit ---------------------------------------------------------------------------------

WEIGHTS_CELLS = frozenset((t, lv) for t in ("cloud", "edge", "mobile") for lv in ("L1", "L2"))
_FIT_OPENERS = (
    "{team} wants to run {model} for {use} on a single {device}, with the weights stored in {prec}.",
    "In a design review for {use}, an engineer proposes loading {model} in {prec} onto one {device}.",
    "A product manager asks whether {use} can use {model} on one {device} if the weights are kept in {prec}.",
    "Before ordering hardware for {use}, {team_l} checks whether {model} in {prec} fits a single {device}.",
    "A pull request changes the serving config of {use} to load {model} in {prec} on one {device}.",
    "A benchmark plan for {use} lists {model}, weights in {prec}, on one {device}, and nobody has done the sizing yet.",
)
_FIT_RESERVE = {
    "cloud": "The runtime, activations and KV cache need {r}% of the {mem} GB of device memory.",
    "edge": "The module's {mem} GB is shared with the OS and the camera pipeline, which keep {r}% of it.",
    "mobile": "The phone has {mem} GB of RAM, and the OS and other apps keep about {r}% of it away from one app.",
}
_FIT_QUESTIONS = {
    "L1": (
        "How many gigabytes do the {prec} weights of {model} take?",
        "What is the weight footprint of {model} at {prec}, in GB?",
        "Roughly how much memory do {model}'s weights need in {prec}?",
    ),
    "L2": (
        "Do the {prec} weights fit in the memory left over, and if not, how many devices would the weights need?",
        "Will {model} in {prec} fit alongside that reserve, and what fraction of the usable memory do its weights take?",
        "Is one {device} enough for the {prec} weights once the reserve is set aside? Show the margin.",
    ),
}
_FIT_TITLES = (
    "{model} Weights in {prec} on One {device}",
    "Weight Memory of {model} at {prec} on a {device}",
    "Sizing {prec} Weights of {model} for a {device}",
    "Does {model} at {prec} Fit a Single {device}",
)


def weights_fit(rng: random.Random, tables: Tables, track: str, level: str) -> Draft | None:
    setting = _setting(rng, tables, track)
    if setting is None or (track, level) not in WEIGHTS_CELLS:
        return None
    device, model, use, prec, reserve = setting
    mem = _memory_gb(device)
    size = model.params * BYTES[prec]
    usable = mem * (1 - reserve)
    w_text, w = shown(size)
    u_text, u = shown(usable)
    share_text, share = shown(w / u * 100)
    fits = w <= u
    need = ceil(w / u)
    slots = {
        "team": pick(rng, CLOUD_TEAMS),
        "team_l": lower_first(pick(rng, CLOUD_TEAMS)),
        "model": model.name,
        "use": use,
        "device": _name(device),
        "prec": prec,
        "r": fmt(reserve * 100),
        "mem": fmt(mem),
    }
    scenario = pick(rng, _FIT_OPENERS).format(**slots) + " " + _FIT_RESERVE[track].format(**slots)
    scenario += f" {model.name} has {fmt(model.params)} billion parameters."
    zone_, bloom = zone(
        rng, level, ("recall", "fluency") if level == "L1" else ("fluency", "analyze", "implement")
    )
    # Only a datacenter GPU has peers to split a model across (tensor parallelism over NVLink); a
    # phone or an edge module runs it alone, so there the way out is a smaller format or model.
    remedy = (
        f"{need} devices' worth of usable memory (tensor parallelism across {need} GPUs) or a smaller format"
        if track == "cloud"
        else "a smaller format or a smaller model, since the device runs it alone"
    )
    verdict = (
        f"Yes: the weights take {w_text} GB, {share_text}% of the {u_text} GB left after the reserve."
        if fits
        else f"No: the weights take {w_text} GB, more than the {u_text} GB left after the reserve, so they need "
        f"{remedy}."
    )
    if level == "L1":
        answer = (
            f"About {w_text} GB. Each parameter takes {fmt(BYTES[prec])} bytes in {prec}, and {model.name} has "
            f"{fmt(model.params)} billion parameters, so the weights alone take {fmt(model.params)} billion times "
            f"{fmt(BYTES[prec])} bytes. Runtime buffers, activations and the KV cache come on top of that."
        )
    else:
        answer = (
            f"{verdict} Weights are parameters times bytes per parameter ({fmt(BYTES[prec])} in {prec}). "
            f"Keep the reserve: without it the first long request fails with an out-of-memory error."
        )
    calculations = [
        f"{fmt(model.params)}B * {fmt(BYTES[prec])} bytes = {w_text} GB of weights",
        f"{fmt(mem)} GB * {fmt(1 - reserve)} = {u_text} GB usable after the reserve",
        f"{w_text} GB / {u_text} GB = {share_text}% of the usable memory",
    ]
    return Draft(
        track=track,
        competency_area="memory",
        topic="vram-budgeting" if track == "cloud" else "memory-pressure-management",
        level=level,
        zone=zone_,
        bloom_level=bloom,
        phase="inference",
        title=pick(rng, _FIT_TITLES).format(**slots),
        scenario=scenario,
        question=pick(
            rng, [q for q in _FIT_QUESTIONS[level] if track == "cloud" or "devices" not in q]
        ).format(**slots),
        solution=answer,
        mistake=(
            "Comparing the parameter count with the memory size directly, as if one parameter took one byte, "
            "or forgetting the memory that is not available for weights.",
            "The billions of parameters and the gigabytes of memory look like the same unit.",
            "The deployment is sized off by the bytes-per-parameter factor and fails at load time or on the first "
            "long request.",
        ),
        assumptions=[
            f"{model.name}: {fmt(model.params)}B parameters ({model.source}).",
            f"{prec}: {fmt(BYTES[prec])} bytes per parameter.",
            f"{_name(device)}: {fmt(mem)} GB of memory; {fmt(reserve * 100)}% kept for everything else.",
        ],
        calculations=calculations if level == "L2" else calculations[:1],
        conclusion=[verdict if level == "L2" else f"The {prec} weights take about {w_text} GB."],
        family="weights-fit",
        params={
            "device": device.key,
            "model": model.key,
            "precision": prec,
            "reserve_pct": int(reserve * 100),
        },
        minutes=2 if level == "L1" else 4,
    )


# --- kv-cache ------------------------------------------------------------------------------------

KV_CELLS = frozenset({("cloud", "L2"), ("cloud", "L3"), ("edge", "L3"), ("mobile", "L3")})
_KV_OPENERS = (
    "{team} serves {model} for {use} on one {device}, with {prec} weights and an FP16 KV cache.",
    "{use_c} runs {model} ({prec} weights, FP16 KV cache) on a single {device}.",
    "A load test of {use} on one {device} uses {model} with {prec} weights and keeps the KV cache in FP16.",
    "An engineer tuning {use} on one {device} has {model} loaded in {prec}; the KV cache stays in FP16.",
    "The capacity sheet for {use} assumes {model} in {prec} on a single {device} and an FP16 KV cache.",
)
_KV_QUESTIONS = {
    "size": (
        "How many bytes of KV cache does each token add, and how much does one {ctx}-token sequence hold?",
        "What is the KV-cache footprint per token and per {ctx}-token sequence for this model?",
    ),
    "fit": (
        "How many {ctx}-token sequences can be in flight at once before the KV cache runs out of memory?",
        "What is the largest batch of {ctx}-token requests that fits next to the weights?",
    ),
    "oom": (
        "Why does a batch of {batch} fail with out-of-memory although the weights fit easily, and what batch does fit?",
        "The server OOMs at batch {batch}. What is eating the memory, and what is the largest batch that fits?",
    ),
}
_KV_TITLES = (
    "KV-Cache Budget for {model} on a {device}",
    "How Many {ctx}-Token Sequences Fit Next to {model} on a {device}",
    "KV-Cache Growth of {model} at {ctx} Tokens",
    "Concurrent Sequences for {model} With an FP16 KV Cache on a {device}",
)


def kv_cache(rng: random.Random, tables: Tables, track: str, level: str) -> Draft | None:
    setting = _setting(rng, tables, track)
    if setting is None or (track, level) not in KV_CELLS:
        return None
    device, model, use, prec, reserve = setting
    ctx = pick(rng, [c for c in (1024, 2048, 4096, 8192, 16384, 32768) if c <= model.context])
    mem = _memory_gb(device)
    per_token = 2 * model.layers * model.kv_heads * model.head_dim * 2
    seq_text, seq = shown(Fraction(per_token * ctx, 10**9))
    w_text, w = shown(model.params * BYTES[prec])
    left_text, left = shown(mem * (1 - reserve) - w)
    if left <= 0 or seq <= 0:
        return None
    fit_text, _ = shown(left / seq)
    # Whole sequences, from the unrounded figures (issue 26: rounding the GB figures first, then the
    # quotient, promised one or two sequences more than fit).
    max_batch = int((mem * (1 - reserve) - model.params * BYTES[prec]) / Fraction(per_token * ctx, 10**9))
    if max_batch < 1 and level != "L2":
        return None
    variant = "size" if level == "L2" else pick(rng, ("fit", "oom"))
    batch = max_batch * 2 + pick(rng, (1, 3, 5)) if max_batch < 64 else max_batch + max_batch // 2
    slots = {
        "team": pick(rng, CLOUD_TEAMS),
        "use": use,
        "use_c": use[0].upper() + use[1:],
        "model": model.name,
        "device": _name(device),
        "prec": prec,
        "ctx": prose(ctx),
        "batch": batch,
    }
    scenario = pick(rng, _KV_OPENERS).format(**slots)
    scenario += (
        f" {model.name} has {model.layers} layers, {model.kv_heads} KV heads of dimension {model.head_dim}, "
        f"and requests run to {prose(ctx)} tokens of context."
    )
    if variant != "size":
        scenario += f" The device has {fmt(mem)} GB, of which {fmt(reserve * 100)}% is kept for the runtime."
    if variant == "oom":
        scenario += f" A batch of {batch} such requests crashes with an out-of-memory error."
    zone_, bloom = zone(
        rng,
        level,
        {"size": ("fluency", "analyze"), "fit": ("analyze", "implement"), "oom": ("diagnosis",)}[variant],
    )
    calculations = [
        f"2 * {model.layers} layers * {model.kv_heads} heads * {model.head_dim} * 2 bytes = {per_token} bytes per token",
        f"{per_token} bytes * {ctx} tokens = {seq_text} GB per sequence",
    ]
    if variant != "size":
        calculations += [
            f"{fmt(model.params)}B * {fmt(BYTES[prec])} bytes = {w_text} GB of weights",
            f"{fmt(mem)} GB * {fmt(1 - reserve)} - {w_text} GB = {left_text} GB for the KV cache",
            f"{left_text} GB / {seq_text} GB = {fit_text} sequences",
        ]
    if variant == "size":
        verdict = f"Each token adds {prose(per_token)} bytes, so one {prose(ctx)}-token sequence holds {seq_text} GB."
    else:
        verdict = f"{max_batch} whole sequences of {prose(ctx)} tokens fit in the {left_text} GB left after the weights."
    if variant == "oom":
        verdict = (
            f"The KV cache, not the weights: {batch} sequences need {fmt(batch * seq)} GB of KV cache against "
            f"{left_text} GB free, so at most {max_batch} fit."
        )
        calculations.append(f"{batch} * {seq_text} GB = {fmt(batch * seq)} GB of KV cache requested")
    answer = (
        f"{verdict} The KV cache stores a key and a value vector per layer and KV head for every token, "
        f"so it grows linearly with context length and batch size while the weights stay fixed."
    )
    if model.kv_heads < model.heads:
        answer += (
            f" Grouped-query attention already helps: {model.name} keeps {model.kv_heads} KV heads for "
            f"{model.heads} query heads."
        )
    answer += " Paged allocation, an FP8 KV cache or a shorter context limit raise the number that fits."
    return Draft(
        track=track,
        competency_area="memory",
        topic="kv-cache-management",
        level=level,
        zone=zone_,
        bloom_level=bloom,
        phase="inference",
        title=pick(rng, _KV_TITLES).format(**slots),
        scenario=scenario,
        question=pick(rng, _KV_QUESTIONS[variant]).format(**slots),
        solution=answer,
        mistake=(
            "Budgeting memory for the weights only, or computing the KV cache with the number of query heads "
            "instead of KV heads.",
            "The weights are the number everyone quotes, and the KV cache is invisible at batch 1 with short prompts.",
            "The service passes a short-prompt test and then fails with out-of-memory errors under real traffic.",
        ),
        assumptions=[
            f"{model.name}: {model.layers} layers, {model.kv_heads} KV heads, head dimension {model.head_dim} "
            f"({model.source}).",
            f"FP16 KV cache: 2 bytes per element, one key and one value per layer and KV head; context {ctx} tokens.",
            f"{_name(device)}: {fmt(mem)} GB; {fmt(reserve * 100)}% kept for the runtime; weights in {prec}.",
        ],
        calculations=calculations,
        conclusion=[verdict],
        family="kv-cache",
        params={
            "device": device.key,
            "model": model.key,
            "precision": prec,
            "context": ctx,
            "reserve_pct": int(reserve * 100),
            "variant": variant,
        },
        minutes={"size": 3, "fit": 5, "oom": 6}[variant],
    )


# --- decode-speed --------------------------------------------------------------------------------

# L2 and L3 only: a drill is a drill (issue 26). The precision-switch question, once labelled L4,
# is one more L3 analysis.
DECODE_CELLS = frozenset([(t, lv) for t in ("cloud", "mobile", "edge") for lv in ("L2", "L3")])
_DECODE_OPENERS = (
    "{team} measures single-stream generation speed of {model} with {prec} weights on one {device} for {use}.",
    "For {use}, {model} runs with {prec} weights on a single {device}, one user at a time.",
    "A latency budget for {use} depends on how fast {model} ({prec} weights) can produce tokens on one {device}.",
    "An engineer profiles {model} in {prec} on a single {device} for {use}, decoding one sequence at a time.",
    "{use_c} streams tokens from {model} with {prec} weights on one {device}, batch size 1.",
)
_DECODE_QUESTIONS = {
    "bound": (
        "What is the upper bound on tokens per second for one stream, and what hardware figure sets it?",
        "How many tokens per second can one stream reach at best, given that each token reads every weight once?",
    ),
    "observed": (
        "The team sees {seen} tokens/s. What fraction of the memory-bandwidth bound is that, and is it plausible?",
        "Measured speed is {seen} tokens/s. How close is that to the bandwidth limit, and where could the rest go?",
    ),
    "switch": (
        "How much faster could single-stream decoding get by moving the weights from {prec} to {prec2}, and what caps the gain?",
        "Would switching the weights from {prec} to {prec2} speed up one stream, by at most how much, and why not more?",
    ),
}
_DECODE_TITLES = (
    "Memory-Bound Decode Speed of {model} on a {device}",
    "Tokens per Second for {model} at {prec} on One {device}",
    "Why Batch-1 Decoding of {model} Is Bandwidth-Bound on a {device}",
    "Single-Stream Generation Ceiling for {model} on a {device}",
)


def decode_speed(rng: random.Random, tables: Tables, track: str, level: str) -> Draft | None:
    setting = _setting(rng, tables, track)
    if setting is None or (track, level) not in DECODE_CELLS:
        return None
    device, model, use, prec, _ = setting
    size = model.params * BYTES[prec]
    if size > _memory_gb(device):
        return None
    bw = device.spec("memory_bandwidth")
    bw_gbs = bw.low / 10**9
    w_text, w = shown(size)
    ms_text, ms = shown(w / bw_gbs * 1000)
    tps_text, tps = shown(1000 / ms)
    efficiency = Fraction(pick(rng, (45, 55, 65, 75)), 100)
    seen = int(tps * efficiency) or 1
    lower = {"FP16": "INT8", "BF16": "INT8", "FP8": "INT4", "INT8": "INT4", "INT4": None}[prec]
    variant = "bound" if level == "L2" else pick(rng, ("observed", "switch"))
    if variant == "switch" and lower is None:
        return None
    slots = {
        "team": pick(rng, CLOUD_TEAMS),
        "use": use,
        "use_c": use[0].upper() + use[1:],
        "model": model.name,
        "device": _name(device),
        "prec": prec,
        "prec2": lower or "",
        "seen": seen,
    }
    scenario = pick(rng, _DECODE_OPENERS).format(**slots)
    scenario += f" {model.name} has {fmt(model.params)} billion parameters, and the device's memory delivers {bw.text}."
    if variant == "observed":
        scenario += f" The profiler reports {seen} tokens/s."
    calculations = [
        f"{fmt(model.params)}B * {fmt(BYTES[prec])} bytes = {w_text} GB read per token",
        f"{w_text} GB / {bw.text} = {ms_text} ms per token at full bandwidth",
        f"1000 / {ms_text} = {tps_text} tokens/s upper bound",
    ]
    verdict = (
        f"At most about {tps_text} tokens/s: every token reads all {w_text} GB of weights, at {bw.text}."
    )
    answer = (
        f"{verdict} At batch 1 each weight is used for one multiply-add per token, so the arithmetic is tiny "
        f"compared with the bytes moved and memory bandwidth, not peak FLOP/s, sets the pace."
    )
    if variant == "observed":
        frac_text, _ = shown(Fraction(seen) / tps * 100)
        calculations.append(f"{seen} / {tps_text} = {frac_text}% of the bound")
        verdict = f"{seen} tokens/s is {frac_text}% of the {tps_text} tokens/s bound, a plausible share."
        answer = (
            f"{verdict} Real kernels rarely sustain more than 70 to 90% of peak bandwidth, and the KV-cache reads, "
            f"kernel launches and sampling add time per token; a share far below half would point at unfused "
            f"kernels, host synchronisation or weights that are not actually in {prec}."
        )
    if variant == "switch":
        w2_text, w2 = shown(model.params * BYTES[lower or prec])
        ratio_text, _ = shown(w / w2)
        calculations.append(f"{w_text} GB / {w2_text} GB = {ratio_text}x fewer bytes per token in {lower}")
        verdict = f"At most about {ratio_text}x faster: {lower} halves the bytes each token must read."
        answer = (
            f"{verdict} Batch-1 decoding is memory-bound, so time per token tracks bytes read. The real gain is "
            f"smaller because the KV cache, activations and dequantisation work do not shrink, and {lower} "
            f"kernels rarely reach the same share of bandwidth; check accuracy on the task before switching."
        )
    zone_, bloom = zone(rng, level, ("fluency", "analyze") if level == "L2" else ("diagnosis", "analyze"))
    return Draft(
        track=track,
        competency_area="latency",
        topic="latency-decomposition" if variant != "switch" else "profiling-bottleneck-analysis",
        level=level,
        zone=zone_,
        bloom_level=bloom,
        phase="inference",
        title=pick(rng, _DECODE_TITLES).format(**slots),
        scenario=scenario,
        question=pick(rng, _DECODE_QUESTIONS[variant]).format(**slots),
        solution=answer,
        mistake=(
            "Estimating decode speed from peak FLOP/s, as 2 x parameters FLOPs per token divided by the TFLOPS "
            "figure.",
            "Peak FLOP/s is the headline number on every datasheet and works for large-batch training.",
            "The estimate is off by one to two orders of magnitude and the latency budget is broken before launch.",
        ),
        assumptions=[
            f"{model.name}: {fmt(model.params)}B parameters; weights in {prec} at {fmt(BYTES[prec])} bytes each.",
            f"{_name(device)}: {bw.text} memory bandwidth (datasheet).",
            "Batch 1: every weight is read once per generated token; KV-cache reads are ignored here.",
        ],
        calculations=calculations,
        conclusion=[verdict],
        family="decode-speed",
        params={
            "device": device.key,
            "model": model.key,
            "precision": prec,
            "observed_tps": seen,
            "variant": variant,
        },
        minutes={"L2": 3, "L3": 5}[level],
    )


# --- roofline ridge ------------------------------------------------------------------------------

RIDGE_CELLS = frozenset([("cloud", lv) for lv in ("L1", "L2", "L3")] + [("edge", "L2"), ("edge", "L3")])
_RIDGE_OPENERS = (
    "{team} is deciding which kernels on the {device} to optimise for {use}.",
    "A performance review for {use} on {device} GPUs asks which operators are memory-bound.",
    "An engineer new to {device} hardware wants a rule of thumb for {use}: when does extra compute help?",
    "Profiling {use} on a {device} shows some kernels far from peak FLOP/s.",
    "A roofline plot for {use} on the {device} is missing its ridge point.",
)
_RIDGE_QUESTIONS = {
    "ridge": (
        "What arithmetic intensity, in FLOP per byte, separates memory-bound from compute-bound kernels here?",
    ),
    "gemm": (
        "Is a square {prec} matrix multiply with n = {n} memory-bound or compute-bound on this device?",
        "Where does an n = {n} square {prec} GEMM land on the roofline: below or above the ridge point?",
    ),
    "batch": (
        "Batch-{b} decoding of a dense model reads each {prec} weight once per step. Is that below the ridge, and what batch reaches it?",
        "At batch {b}, is a {prec} decode step compute-bound, and from what batch size on would it be?",
    ),
    "buy": (
        "The team can buy more FLOP/s or more bandwidth. Which helps an elementwise {prec} kernel, and which an n = {n} GEMM?",
    ),
}


def ridge(rng: random.Random, tables: Tables, track: str, level: str) -> Draft | None:
    if (track, level) not in RIDGE_CELLS:
        return None
    keys = CLOUD_GPUS if track == "cloud" else ("jetson-agx-orin",)
    device = tables.hardware.devices[pick(rng, keys)]
    precs = [p for p in ("fp16", "bf16", "fp8") if f"flops.{p}" in {s.field for s in device.specs}]
    if not precs:
        return None
    p = pick(rng, precs)
    prec = p.upper()
    variant = {"L1": "ridge", "L2": pick(rng, ("gemm", "buy")), "L3": "batch"}[level]
    peak = device.spec(f"flops.{p}")
    bw = device.spec("memory_bandwidth")
    ridge_text, ridge_value = shown(peak.low / bw.low)
    n = pick(rng, (64, 128, 256, 512, 1024, 4096, 8192))
    b = pick(rng, (1, 4, 8, 16, 32))
    elem = Fraction(1 if p == "fp8" else 2)
    slots = {
        "team": pick(rng, CLOUD_TEAMS),
        "use": pick(rng, CLOUD_USES if track == "cloud" else EDGE_USES),
        "device": _name(device),
        "prec": prec,
        "n": n,
        "b": b,
    }
    scenario = pick(rng, _RIDGE_OPENERS).format(**slots)
    scenario += f" The datasheet gives {peak.text} dense {prec} and {bw.text} of memory bandwidth."
    calculations = [f"{peak.text} / {bw.text} = {ridge_text} FLOP/byte at the ridge point"]
    verdict = f"The ridge point is about {ridge_text} FLOP per byte."
    answer = (
        f"{verdict} A kernel that does fewer floating-point operations per byte of memory traffic than that "
        f"cannot reach peak compute on this device and is limited by bandwidth; above it, compute is the limit."
    )
    if variant in ("gemm", "buy"):
        ai_text, ai = shown(Fraction(2 * n**3) / (3 * n * n * elem))
        calculations += [
            f"2 * {n}^3 = {2 * n**3} FLOPs",
            f"3 * {n}^2 * {fmt(elem)} bytes = {3 * n * n * elem} bytes for A, B and C",
            f"{2 * n**3} / {3 * n * n * elem} = {ai_text} FLOP/byte",
        ]
        side = "compute-bound" if ai > ridge_value else "memory-bound"
        verdict = (
            f"With n = {n} the GEMM does {ai_text} FLOP per byte against a ridge of {ridge_text}: {side}."
        )
        answer = (
            f"{verdict} A square GEMM does 2n^3 operations on 3n^2 elements, so its intensity grows with n; small "
            f"matrices, like elementwise kernels, sit left of the ridge."
        )
        if variant == "buy":
            verdict += " An elementwise kernel does well under 1 FLOP per byte, so only bandwidth helps it."
            answer = (
                f"{verdict} Buy for the workload's intensity: bandwidth speeds up everything left of the ridge "
                f"(elementwise, normalisation, batch-1 decode), FLOP/s only what is right of it (large GEMMs, prefill)."
            )
    if variant == "batch":
        calculations.append(
            f"{b} * 2 FLOPs / {fmt(elem)} bytes = {fmt(Fraction(2 * b) / elem)} FLOP/byte at batch {b}"
        )
        need = ceil(ridge_value * elem / 2)
        verdict = (
            f"At batch {b} a decode step does {fmt(Fraction(2 * b) / elem)} FLOP per weight byte, "
            f"{'below' if Fraction(2 * b) / elem < ridge_value else 'above'} the ridge of {ridge_text}; "
            f"a batch of about {need} reaches it."
        )
        answer = (
            f"{verdict} Each weight read serves one multiply-add per sequence in the batch, so intensity grows "
            f"linearly with batch size until KV-cache traffic and memory capacity stop it."
        )
    zone_, bloom = zone(
        rng, level, {"L1": ("recall", "fluency"), "L2": ("fluency", "analyze"), "L3": ("analyze",)}[level]
    )
    return Draft(
        track=track,
        competency_area="compute",
        topic="roofline-analysis",
        level=level,
        zone=zone_,
        bloom_level=bloom,
        phase="both",
        title=pick(
            rng,
            (
                "Roofline Ridge Point of the {device} at {prec}",
                "Memory-Bound or Compute-Bound on a {device}",
                "Arithmetic Intensity Against the {device} Ridge",
                "Where {prec} Kernels Sit on the {device} Roofline",
            ),
        ).format(**slots),
        scenario=scenario,
        question=pick(rng, _RIDGE_QUESTIONS[variant]).format(**slots),
        solution=answer,
        mistake=(
            "Judging a kernel by its FLOP count alone and assuming a faster GPU speeds up every kernel in proportion "
            "to its TFLOPS.",
            "Datasheets lead with peak FLOP/s, and large GEMMs do scale with it.",
            "Optimisation effort and hardware budget go to compute while the memory-bound kernels that dominate "
            "the time stay as slow as before.",
        ),
        assumptions=[
            f"{_name(device)}: {peak.text} dense {prec}, {bw.text} memory bandwidth (datasheet).",
            f"{prec} elements are {fmt(elem)} bytes; caches ignored (every operand read or written once).",
        ],
        calculations=calculations,
        conclusion=[verdict],
        family="roofline-ridge",
        params={"device": device.key, "precision": p, "n": n, "batch": b, "variant": variant},
        minutes={"L1": 2, "L2": 4, "L3": 5}[level],
    )
