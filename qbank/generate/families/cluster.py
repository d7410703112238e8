"""Training at scale: optimizer-state memory, training time and cost, all-reduce, checkpoints, fleets.

Formulas and their sources:
  mixed-precision Adam keeps 16 bytes per parameter: 2 (BF16 weights) + 2 (gradients) + 12 (FP32
  master weights, momentum, variance); ZeRO stage 3 shards all of it over N devices
  (Rajbhandari et al. 2020, "ZeRO", §3).
  training compute = 6 x parameters x tokens (Kaplan et al. 2020, §2.1); compute-optimal tokens
  are about 20 per parameter (Hoffmann et al. 2022, "Chinchilla").
  ring all-reduce moves 2 (N - 1) / N of the buffer through each device's link (Patarasuk and
  Yuan 2009; the NCCL "bus bandwidth" convention).
  optimal checkpoint interval = sqrt(2 x checkpoint time x MTBF) (Young 1974).
"""

from __future__ import annotations

import random
from fractions import Fraction

from qbank.generate.draft import Draft
from qbank.generate.families.common import pick, zone
from qbank.generate.families.llm import _name
from qbank.generate.numbers import ceil, fmt, prose, shown
from qbank.generate.tables import Tables

TRAIN_GPUS = ("v100", "a100-40gb", "a100-80gb", "h100-sxm", "h200", "b200", "mi300x")
BIG_MODELS = (
    "llama-2-7b",
    "llama-2-13b",
    "llama-3-8b",
    "mistral-7b",
    "falcon-40b",
    "llama-2-70b",
    "llama-3-70b",
    "gpt-3-175b",
)
PRICES = {
    "v100": 2,
    "a100-40gb": 3,
    "a100-80gb": 4,
    "h100-sxm": 7,
    "h200": 9,
    "b200": 12,
    "mi300x": 6,
    "h100-pcie": 5,
    "l4": 1,
}
_TRAIN_USES = (
    "a domain-adapted assistant for radiology reports",
    "a code model for an internal monorepo",
    "a multilingual support model",
    "a financial-filings model",
    "a research replication of an open model",
    "a chemistry literature model",
    "a legal-drafting model",
    "a model for a new language market",
)


_TRAIN_TEAMS = (
    "A research engineer at a university lab",
    "The training-infrastructure team of an AI startup",
    "A foundation-model team at a cloud provider",
    "The applied-research group of a bank",
    "An ML platform engineer at a healthcare company",
    "The pre-training lead of a language-model lab",
    "A staff engineer on a recommendation team",
    "The ML team of a legal-tech company",
)


def _train_setting(rng: random.Random, tables: Tables) -> tuple:  # type: ignore[type-arg]
    device = tables.hardware.devices[pick(rng, TRAIN_GPUS)]
    model = tables.models[pick(rng, BIG_MODELS)]
    return device, model, pick(rng, _TRAIN_USES), pick(rng, _TRAIN_TEAMS)


# --- optimizer-state memory ----------------------------------------------------------------------

# One cell, three questions (issue 26: the DDP and ZeRO-stage ones were labelled L4 and L5, but
# they are the same arithmetic, which the taxonomy places at L3).
STATE_CELLS = frozenset({("cloud", "L3")})


def optimizer_state(rng: random.Random, tables: Tables, track: str, level: str) -> Draft | None:
    if (track, level) not in STATE_CELLS:
        return None
    device, model, use, team = _train_setting(rng, tables)
    mem = device.spec("memory").low / 10**9
    act = Fraction(pick(rng, (20, 25, 30, 40)), 100)
    n = pick(rng, (8, 16, 32, 64, 128))
    total_text, total = shown(model.params * 16)
    usable_text, usable = shown(mem * (1 - act))
    per_text, per = shown(total / n)
    need = ceil(total / usable)
    name = _name(device)
    scenario = pick(
        rng,
        (
            f"{team} is fine-tuning all weights of {model.name} for {use} with Adam in mixed precision "
            f"(BF16 weights and gradients, FP32 master weights and moments) on {name} GPUs with {fmt(mem)} GB each.",
            f"A full fine-tune of {model.name} for {use} is planned on {name} GPUs ({fmt(mem)} GB each), using Adam "
            f"with BF16 weights and gradients plus FP32 master weights and moments.",
            f"{team} wants to update every weight of {model.name}, for {use}, on {fmt(mem)} GB {name} GPUs; the "
            f"optimizer is mixed-precision Adam (FP32 master copy and two FP32 moments).",
        ),
    ) + pick(
        rng,
        (
            f" Activations take about {fmt(act * 100)}% of each GPU's memory at the chosen micro-batch.",
            f" Profiling shows activations using roughly {fmt(act * 100)}% of device memory per GPU.",
            f" Keep {fmt(act * 100)}% of each GPU for activations and workspace.",
        ),
    )
    calculations = [
        "2 + 2 + 12 = 16 bytes per parameter",
        f"{fmt(model.params)}B * 16 bytes = {total_text} GB of weights, gradients and optimizer state",
        f"{fmt(mem)} GB * {fmt(1 - act)} = {usable_text} GB per GPU left for them",
    ]
    variant = pick(rng, ("count", "ddp", "stages"))
    if variant == "count":
        calculations.append(f"{total_text} GB / {usable_text} GB = {fmt(total / usable)} GPUs")
        question = pick(
            rng,
            (
                "How much memory do the training states need, and how many GPUs at least if ZeRO-3 shards them evenly?",
                "What is the smallest number of these GPUs that can hold the training states with full sharding?",
            ),
        )
        verdict = f"{total_text} GB of training state, so at least {need} GPUs with ZeRO-3 sharding."
        zone_, bloom = zone(rng, level, ("analyze", "implement"))
    elif variant == "ddp":
        scenario += (
            f" The first attempt uses plain data parallelism (DDP) on {n} GPUs and fails with out-of-memory."
        )
        calculations.append(f"{total_text} GB / {n} = {per_text} GB per GPU in ZeRO stage 3 over {n} GPUs")
        fits = per <= usable
        question = pick(
            rng,
            (
                f"Why does DDP on {n} GPUs run out of memory, and would ZeRO-3 on the same {n} GPUs fit?",
                f"What does each GPU hold under DDP, and does sharding everything over the {n} GPUs solve it?",
            ),
        )
        verdict = (
            f"DDP replicates all {total_text} GB on every GPU; ZeRO-3 leaves {per_text} GB per GPU, which "
            + ("fits in" if fits else "still exceeds")
            + f" the {usable_text} GB available."
        )
        zone_, bloom = zone(rng, level, ("diagnosis",))
    else:
        z1_text, z1 = shown(model.params * 4 + model.params * 12 / n)
        z2_text, z2 = shown(model.params * 2 + model.params * 14 / n)
        calculations += [
            f"{fmt(model.params)}B * 4 bytes + {fmt(model.params)}B * 12 bytes / {n} = {z1_text} GB per GPU in ZeRO stage 1",
            f"{fmt(model.params)}B * 2 bytes + {fmt(model.params)}B * 14 bytes / {n} = {z2_text} GB per GPU in ZeRO stage 2",
            f"{total_text} GB / {n} = {per_text} GB per GPU in ZeRO stage 3",
        ]
        options = [(z1, "ZeRO-1"), (z2, "ZeRO-2"), (per, "ZeRO-3")]
        fitting = [s for v, s in options if v <= usable]
        choice = fitting[0] if fitting else None
        question = pick(
            rng,
            (
                f"On {n} GPUs, which ZeRO stage is the least intrusive one that fits, and what does each stage leave per GPU?",
                f"Specify the sharding for {n} GPUs: per-GPU memory under ZeRO-1, 2 and 3, and the stage you would pick.",
            ),
        )
        verdict = (
            f"Per GPU: {z1_text} GB (ZeRO-1), {z2_text} GB (ZeRO-2), {per_text} GB (ZeRO-3) against {usable_text} GB; "
            + (
                f"{choice} is the lowest stage that fits."
                if choice
                else f"none fits on {n} GPUs; use at least {need}."
            )
        )
        zone_, bloom = zone(rng, level, ("analyze",))
    answer = (
        f"{verdict} Mixed-precision Adam keeps 16 bytes per parameter, so {fmt(model.params)} billion parameters "
        f"need {total_text} GB before activations. Higher ZeRO stages shard more of it but add communication: "
        f"ZeRO-3 gathers the weights for every layer in forward and backward."
    )
    return Draft(
        track=track,
        competency_area="parallelism",
        topic="data-parallelism",
        level=level,
        zone=zone_,
        bloom_level=bloom,
        phase="training",
        title=pick(
            rng,
            (
                "Adam Training State of {m} on {d} GPUs",
                "ZeRO Sharding for Full Fine-Tuning of {m}",
                "Why {m} Fine-Tuning Runs Out of Memory on {d}",
                "GPU Count for Training {m} With Adam",
            ),
        ).format(m=model.name, d=name),
        scenario=scenario,
        question=question,
        solution=answer,
        mistake=(
            "Counting only the BF16 weights (2 bytes per parameter) when sizing training memory.",
            "Inference sizing uses the weights alone, and the optimizer state is invisible in the model card.",
            "The job is planned on an eighth of the memory it needs and fails at the first optimizer step.",
        ),
        assumptions=[
            f"{model.name}: {fmt(model.params)}B parameters ({model.source}).",
            "Mixed-precision Adam: 2 bytes BF16 weights, 2 bytes gradients, 12 bytes FP32 master weights and moments.",
            f"{name}: {fmt(mem)} GB per GPU; {fmt(act * 100)}% of it for activations.",
        ],
        calculations=calculations,
        conclusion=[verdict],
        family="optimizer-state",
        params={
            "device": device.key,
            "model": model.key,
            "gpus": n,
            "activation_pct": int(act * 100),
            "variant": variant,
        },
        minutes={"count": 5, "ddp": 6, "stages": 7}[variant],
    )


# --- training time and cost ----------------------------------------------------------------------

TIME_CELLS = frozenset({("cloud", "L3"), ("global", "L3")})


def training_time(rng: random.Random, tables: Tables, track: str, level: str) -> Draft | None:
    if (track, level) not in TIME_CELLS:
        return None
    device, model, use, team = _train_setting(rng, tables)
    if "flops.bf16" not in {s.field for s in device.specs}:
        return None
    peak = device.spec("flops.bf16")
    name = _name(device)
    n = pick(rng, (256, 512, 1024, 2048, 4096))
    mfu = Fraction(pick(rng, (30, 35, 40, 45, 50)), 100)
    optimal = rng.random() < 0.5  # the token budget from the compute-optimal rule, or a given one
    tokens = model.params * 20 if optimal else Fraction(pick(rng, (300, 500, 1000, 2000)))
    tokens = Fraction(fmt(tokens))  # as written: later lines compute from the stated token count
    price = PRICES[device.key]
    flops_text, flops = shown(6 * model.params * tokens * 10**18 / 10**21)  # in units of 10^21 FLOPs
    rate_text, rate = shown(peak.low * n * mfu / 10**18)  # EFLOP/s delivered
    secs_text, secs = shown(flops * 1000 / rate)
    days_text, days = shown(secs / 86400)
    hours_text, hours = shown(days * 24 * n)
    cost_text, cost = shown(hours * price)
    scenario = pick(
        rng,
        (
            f"{team} plans to pre-train a {model.name}-sized model ({fmt(model.params)}B parameters) for {use} on "
            f"{tokens_prose(tokens)} tokens, using {prose(n)} {name} GPUs at {peak.text} dense BF16 each.",
            f"A proposal for {use} asks for {prose(n)} {name} GPUs ({peak.text} dense BF16 each) to train a "
            f"{fmt(model.params)}B-parameter model, {model.name}-sized, on {tokens_prose(tokens)} tokens.",
            f"{team} must quote time and cost for training a {fmt(model.params)}B model (the size of {model.name}) "
            f"on {tokens_prose(tokens)} tokens across {prose(n)} {name} GPUs at {peak.text} dense BF16.",
        ),
    ) + pick(
        rng,
        (
            f" Comparable runs reached {fmt(mfu * 100)}% model FLOPs utilisation, and the GPUs cost ${price} per "
            f"GPU-hour.",
            f" Assume {fmt(mfu * 100)}% MFU, as on earlier runs, and ${price} per GPU-hour.",
            f" The cloud contract is ${price} per GPU-hour; expect {fmt(mfu * 100)}% model FLOPs utilisation.",
        ),
    )
    calculations = [f"20 * {fmt(model.params)}e9 = {fmt(tokens)}e9 tokens"] if optimal else []
    calculations += [
        f"6 * {fmt(model.params)}e9 * {fmt(tokens)}e9 = {flops_text}e21 FLOPs",
        f"{prose(n)} * {peak.text} * {fmt(mfu)} = {rate_text} EFLOPS delivered",
        f"{flops_text}e21 FLOPs / {rate_text} EFLOPS = {secs_text} s",
        f"{secs_text} / 86400 = {days_text} days",
        f"{days_text} * 24 * {n} = {hours_text} GPU-hours",
        f"{hours_text} * {price} = {cost_text} dollars",
    ]
    verdict = f"About {days_text} days on {prose(n)} GPUs, roughly ${prose(cost)} of GPU time."
    if optimal:
        scenario += " The token budget follows the compute-optimal rule of about 20 tokens per parameter."
        question = "How many tokens does that rule give, and how many days and dollars will the run take?"
        verdict = f"{tokens_prose(tokens)} tokens: " + verdict[0].lower() + verdict[1:]
    else:
        question = "How many days will the run take, and what will the GPU time cost?"
    zone_, bloom = zone(rng, level, ("analyze",))
    answer = (
        f"{verdict} Training compute is about 6 FLOPs per parameter per token, and the fleet delivers peak times "
        f"utilisation, not peak. Utilisation is the least certain input: each point of MFU moves the schedule by a "
        f"few percent, and restarts after failures, evaluation pauses and data-pipeline stalls come on top."
    )
    return Draft(
        track=track,
        competency_area="compute" if track == "cloud" else "cross-cutting",
        topic="compute-cost-estimation" if track == "cloud" else "tco-cost-modeling",
        level=level,
        zone=zone_,
        bloom_level=bloom,
        phase="training",
        title=pick(
            rng,
            (
                "Days and Dollars to Pre-Train a {p}B Model on {n} {d} GPUs",
                "Training-Time Estimate for a {p}B Model at {u}% MFU",
                "Budgeting a {p}B Pre-Training Run on {d} GPUs",
                "How Long {n} {d} GPUs Take for a {p}B Model",
            ),
        ).format(p=fmt(model.params), n=prose(n), d=name, u=fmt(mfu * 100)),
        scenario=scenario,
        question=question,
        solution=answer,
        mistake=(
            "Dividing the FLOPs by peak throughput, or using 2 FLOPs per parameter per token (the forward pass only).",
            "Peak TFLOPS is the datasheet number, and 2 x parameters is the familiar inference figure.",
            "The schedule comes out two to six times too optimistic, and the budget is exhausted before the run ends.",
        ),
        assumptions=[
            f"{fmt(model.params)}B parameters, {tokens_prose(tokens)} tokens; 6 FLOPs per parameter per token.",
            f"{prose(n)} {name} GPUs at {peak.text} dense BF16; MFU {fmt(mfu * 100)}%.",
            f"${price} per GPU-hour (assumed contract price).",
        ],
        calculations=calculations,
        conclusion=[verdict],
        family="training-time",
        params={
            "device": device.key,
            "model": model.key,
            "gpus": n,
            "mfu_pct": int(mfu * 100),
            "tokens_b": fmt(tokens),
        },
        minutes=6,
    )


def tokens_prose(tokens_b: Fraction) -> str:
    """Billions of tokens in words: 1.4 trillion, 300 billion."""
    if tokens_b >= 1000:
        return f"{fmt(tokens_b / 1000)} trillion"
    return f"{fmt(tokens_b)} billion"


# --- all-reduce ----------------------------------------------------------------------------------

ALLREDUCE_CELLS = frozenset({("cloud", "L3")})  # three questions at L3 (issue 26: drills are drills)


def allreduce(rng: random.Random, tables: Tables, track: str, level: str) -> Draft | None:
    if (track, level) not in ALLREDUCE_CELLS:
        return None
    device, model, use, team = _train_setting(rng, tables)
    links = [s for s in device.specs if s.field == "nvlink"]
    if len(links) < 2:
        return None
    link = links[1]  # per direction
    name = _name(device)
    n = pick(rng, (4, 8))
    # Each GPU holds BF16 weights and gradients (4 bytes per parameter) and a 1/n share of the FP32
    # optimizer state (ZeRO-1, 12 bytes); a model that does not fit in 80% of memory is not drawn.
    if model.params * (4 + Fraction(12, n)) > device.spec("memory").low / 10**9 * Fraction(4, 5):
        return None
    grad_text, grad = shown(model.params * 2)
    moved_text, moved = shown(Fraction(2 * (n - 1), n) * grad)
    t_text, t = shown(moved / (link.low / 10**9) * 1000)
    compute_ms = pick(rng, (400, 600, 800, 1200, 1500))
    scenario = pick(
        rng,
        (
            f"{team} trains {model.name} ({fmt(model.params)}B parameters) for {use} with data parallelism and "
            f"ZeRO-1 optimizer sharding on {n} {name} GPUs in one server, all-reducing BF16 gradients with NCCL's "
            f"ring algorithm.",
            f"A data-parallel job for {use} replicates {model.name} ({fmt(model.params)}B parameters) on {n} {name} "
            f"GPUs of one node (optimizer state sharded) and syncs BF16 gradients with a ring all-reduce every step.",
            f"{team} profiles the gradient sync of {model.name} ({fmt(model.params)}B parameters), trained for {use} "
            f"on one server of {n} {name} GPUs with data parallelism, a sharded optimizer and NCCL rings.",
        ),
    ) + pick(
        rng,
        (
            f" NVLink gives each GPU {link.text} per direction.",
            f" Each GPU's NVLink moves {link.text} in each direction.",
            f" The NVLink rate is {link.text} per direction per GPU.",
        ),
    )
    calculations = [
        f"{fmt(model.params)}B * 2 bytes = {grad_text} GB of gradients",
        f"2 * ({n} - 1) / {n} * {grad_text} GB = {moved_text} GB through each GPU's link",
        f"{moved_text} GB / {link.text} = {t_text} ms per all-reduce",
    ]
    verdict = f"About {t_text} ms per step for the all-reduce, if nothing overlaps it."
    variant = pick(rng, ("time", "share", "levers"))
    if variant == "time":
        question = "How long does one gradient all-reduce take at best?"
        zone_, bloom = zone(rng, level, ("analyze", "implement"))
    elif variant == "share":
        scenario += f" Forward and backward take {compute_ms} ms per step, but steps take longer than that."
        share_text, _ = shown(t / (t + compute_ms))
        calculations.append(
            f"{t_text} / ({t_text} + {compute_ms}) = {share_text} of the step if not overlapped"
        )
        question = "How much of each step could the all-reduce cost if it is not overlapped with backward?"
        verdict = f"Up to {share_text} of the step ({t_text} ms of {fmt(t + compute_ms)} ms) if communication is serialised."
        zone_, bloom = zone(rng, level, ("diagnosis",))
    else:
        scenario += f" Backward takes {compute_ms * 2 // 3} ms, and the team considers gradient accumulation over 4 micro-batches."
        quarter_text, _ = shown(t / 4)
        calculations.append(
            f"{t_text} / 4 = {quarter_text} ms of all-reduce per micro-batch with accumulation over 4"
        )
        question = pick(
            rng,
            (
                "Which lever cuts communication cost more here: bucketing to overlap with backward, or "
                "accumulating 4 micro-batches?",
                "Compare overlapping the all-reduce with backward against accumulating 4 micro-batches.",
                "Should the team overlap communication or accumulate gradients? Quantify both.",
            ),
        )
        verdict = (
            f"Accumulation divides the {t_text} ms all-reduce by 4 per micro-batch ({quarter_text} ms); "
            f"overlap hides it entirely only if backward ({compute_ms * 2 // 3} ms) is longer than the all-reduce."
        )
        zone_, bloom = zone(rng, level, ("analyze",))
    answer = (
        f"{verdict} A ring all-reduce sends and receives 2(N-1)/N of the gradient buffer through every GPU's link, "
        f"so its time barely depends on N within a server and is set by the per-direction link bandwidth. "
        f"NCCL reaches 80 to 90% of it for large buffers, less for many small ones, which is why frameworks bucket "
        f"gradients into tens of megabytes and launch each bucket as soon as backward has produced it."
    )
    return Draft(
        track=track,
        competency_area="networking",
        topic="collective-communication",
        level=level,
        zone=zone_,
        bloom_level=bloom,
        phase="training",
        title=pick(
            rng,
            (
                "Ring All-Reduce Time for {m} Gradients on {n} {d} GPUs",
                "Gradient All-Reduce Cost Over NVLink for {m}",
                "How Long NCCL Needs to Sync {m} Gradients on {d}",
            ),
        ).format(m=model.name, n=n, d=name),
        scenario=scenario,
        question=question,
        solution=answer,
        mistake=(
            "Dividing the gradient size by the link bandwidth once, or multiplying by the number of GPUs.",
            "It looks like each GPU must send its gradients to every other GPU.",
            "The communication estimate is off by a factor of two or of N, and the parallelism plan is built on it.",
        ),
        assumptions=[
            f"{model.name}: {fmt(model.params)}B parameters, gradients in BF16 (2 bytes).",
            f"{name} NVLink: {link.text} per direction per GPU (datasheet total halved); {n} GPUs in a ring.",
        ],
        calculations=calculations,
        conclusion=[verdict],
        family="allreduce",
        params={
            "device": device.key,
            "model": model.key,
            "gpus": n,
            "compute_ms": compute_ms,
            "variant": variant,
        },
        minutes=5,
    )


# --- checkpoints ---------------------------------------------------------------------------------

CKPT_CELLS = frozenset({("cloud", "L3"), ("global", "L3")})


def checkpoint(rng: random.Random, tables: Tables, track: str, level: str) -> Draft | None:
    if (track, level) not in CKPT_CELLS:
        return None
    device, model, use, team = _train_setting(rng, tables)
    name = _name(device)
    n = pick(rng, (512, 1024, 2048, 4096))
    write = pick(rng, (20, 50, 100, 200))  # GB/s aggregate to the parallel file system
    mtbf_gpu = pick(rng, (50000, 80000, 100000))  # hours per GPU between job-killing failures
    interval = pick(rng, (30, 60, 120, 180))  # minutes
    size_text, size = shown(model.params * 14)
    t_text, t = shown(size / write)
    scenario = pick(
        rng,
        (
            f"{team} trains {model.name} ({fmt(model.params)}B parameters) for {use} on {prose(n)} {name} GPUs.",
            f"A {prose(n)}-GPU {name} job trains {model.name} ({fmt(model.params)}B parameters) for {use}.",
            f"{team} reviews the fault tolerance of a {model.name} run ({fmt(model.params)}B parameters, {use}) "
            f"on {prose(n)} {name} GPUs.",
        ),
    ) + pick(
        rng,
        (
            f" A checkpoint holds BF16 weights plus FP32 master weights and Adam moments, written to a parallel "
            f"file system that sustains {write} GB/s for the job.",
            f" Each checkpoint saves BF16 weights, the FP32 master copy and both Adam moments; the shared file "
            f"system absorbs {write} GB/s from the job.",
            f" Checkpoints (BF16 weights, FP32 master weights, two FP32 Adam moments) go to storage that takes "
            f"{write} GB/s.",
        ),
    )
    calculations = [
        f"{fmt(model.params)}B * 14 bytes = {size_text} GB per checkpoint",
        f"{size_text} GB / {write} GB/s = {t_text} s to write it",
    ]
    verdict = f"A checkpoint is {size_text} GB and takes about {t_text} s to write."
    variant = pick(rng, ("size", "share", "interval"))  # each asks for one step more than the last
    if variant != "size":
        scenario += f" Training pauses while a checkpoint is written, every {interval} minutes."
        ovh_text, _ = shown(t / (interval * 60))
        calculations.append(f"{t_text} s / ({interval} * 60 s) = {ovh_text} of training time spent writing")
        verdict += f" At one every {interval} minutes that is {ovh_text} of the time."
    if variant == "interval":
        scenario += f" Each GPU fails in a way that kills the job about once per {prose(mtbf_gpu)} hours."
        mtbf_text, mtbf = shown(Fraction(mtbf_gpu, n))
        seconds = fmt(mtbf * 3600, 12)  # exact: the written hours times 3600
        root = round(float(2 * t * mtbf * 3600) ** 0.5)
        calculations += [
            f"{mtbf_gpu} h / {n} = {mtbf_text} h between job failures",
            f"{mtbf_text} h = {seconds} s",
            f"sqrt(2 * {t_text} s * {seconds} s) ≈ {root} s optimal interval",
        ]
        best = Fraction(root, 60)
        verdict += f" Young's rule gives an interval of about {fmt(best)} minutes, " + (
            f"so the current {interval} minutes is too long: each failure throws away more work than it must."
            if interval > best * 2
            else f"so the current {interval} minutes checkpoints more often than it pays to."
            if interval < best / 2
            else f"close enough to the current {interval} minutes."
        )
    question = {
        "size": "How big is one checkpoint, and how long does writing it stall training?",
        "share": "What share of training time goes to writing checkpoints at this interval?",
        "interval": "What checkpoint interval minimises lost time, and how does it compare with the current one?",
    }[variant]
    zone_, bloom = zone(rng, level, ("analyze",))
    answer = (
        f"{verdict} The checkpoint carries 14 bytes per parameter: 2 for the BF16 weights and 12 for the FP32 master "
        f"copy and the two Adam moments. Checkpointing too often wastes write time; too rarely, each failure throws "
        f"away on average half an interval of work on every GPU. Young's approximation balances the two as the square "
        f"root of twice the write time times the mean time between failures. Asynchronous checkpointing (copy to host "
        f"memory, then write in the background) cuts the stall to the copy time and lets the interval shrink."
    )
    return Draft(
        track=track,
        competency_area="reliability",
        topic="fault-tolerance-checkpointing",
        level=level,
        zone=zone_,
        bloom_level=bloom,
        phase="training",
        title=pick(
            rng,
            (
                "Checkpoint Size and Stall for {m} on {n} GPUs",
                "How Often to Checkpoint a {m} Run",
                "Checkpoint Interval for {m} at {w} GB/s",
                "Failure-Aware Checkpointing of {m} on {d}",
            ),
        ).format(m=model.name, n=prose(n), w=write, d=name),
        scenario=scenario,
        question=question,
        solution=answer,
        mistake=(
            "Sizing the checkpoint as the BF16 weights only, and picking the interval by habit (every hour, every 1,000 steps).",
            "Inference checkpoints are weights only, and round intervals feel safe.",
            "Restores fail without optimizer state, or the job loses hours per failure or per day of writing.",
        ),
        assumptions=[
            f"{model.name}: {fmt(model.params)}B parameters; 14 bytes each in a checkpoint (BF16 weights, FP32 master, m, v).",
            f"{write} GB/s sustained write bandwidth for the job.",
        ]
        + (
            [f"Per-GPU job-killing failures: one per {prose(mtbf_gpu)} h; {prose(n)} GPUs."]
            if variant == "interval"
            else []
        ),
        calculations=calculations,
        conclusion=[verdict],
        family="checkpoint",
        params={
            "device": device.key,
            "model": model.key,
            "gpus": n,
            "write_gbs": write,
            "interval_min": interval,
            "mtbf_h": mtbf_gpu,
            "variant": variant,
        },
        minutes={"size": 4, "share": 5, "interval": 7}[variant],
    )
