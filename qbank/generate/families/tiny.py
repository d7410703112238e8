"""Microcontroller drills: will the model fit flash and SRAM, how long one inference takes, how long
a duty-cycled battery lasts.

Formulas (standard; see e.g. Banbury et al. 2021, "MLPerf Tiny Benchmark", for the workloads, and
the TensorFlow Lite Micro docs for the arena):
  INT8 weights = parameters x 1 byte, in flash; the tensor arena (activations) lives in SRAM
  inference time = MACs / (clock x effective MACs per cycle)
  average current = active current x duty + sleep current; battery life = capacity / average current
The model sizes, MAC counts and currents are the scenario's own (stated as given); only the MCU's
clock, SRAM and flash come from the sourced hardware table.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from qbank.generate.draft import Draft
from qbank.generate.english import article, lower_first
from qbank.generate.families.common import pick, zone
from qbank.generate.numbers import fmt, prose, shown
from qbank.generate.tables import Tables
from qbank.model.hardware import Device

MCUS = ("stm32f407", "stm32f746", "stm32h743", "nrf52840", "esp32-s3", "rp2040")
TASKS = (  # task, model, what one inference consumes, products that would run it
    (
        "keyword spotting",
        "a depthwise-separable CNN",
        "audio frame",
        ("a smart light switch", "a toy robot", "a TV remote"),
    ),
    (
        "wake-word detection",
        "a small convolutional model",
        "audio window",
        ("a hearing-aid companion", "a smart speaker"),
    ),
    (
        "person detection",
        "a MobileNet-style detector",
        "camera frame",
        ("a smart doorbell", "an occupancy sensor"),
    ),
    (
        "vibration anomaly detection",
        "a dense autoencoder",
        "sensor window",
        ("a factory motor monitor", "a pump monitor"),
    ),
    (
        "gesture recognition",
        "a 1-D CNN",
        "IMU window",
        ("a fitness band", "a smart ring", "a game controller"),
    ),
    (
        "bird-call classification",
        "a spectrogram CNN",
        "audio clip",
        ("a forest acoustic monitor", "a garden bird feeder"),
    ),
    ("fall detection", "a small GRU", "IMU window", ("an elder-care wearable", "a smart walking stick")),
    (
        "pest detection",
        "a tiny image classifier",
        "camera frame",
        ("a battery-powered pest trap", "a greenhouse node"),
    ),
    (
        "leak detection",
        "a spectrogram CNN",
        "audio window",
        ("a pipeline leak sensor", "a water-meter add-on"),
    ),
    ("hive-health monitoring", "a small audio classifier", "audio clip", ("a beehive monitor",)),
)
WHO = (
    "A firmware engineer",
    "The embedded team at a consumer-electronics startup",
    "A student building a thesis prototype",
    "An IoT consultant",
    "The hardware lead of a two-person company",
    "A field-applications engineer",
    "An ML engineer new to microcontrollers",
    "The reliability engineer of an industrial-sensor vendor",
)


def _mcu(rng: random.Random, tables: Tables) -> Device:
    return tables.hardware.devices[pick(rng, MCUS)]


def _kb(text: str) -> Fraction:
    """A table figure such as "320 KB" or "1 MB" in KB (decimal, as the napkin units read them)."""
    number, unit = text.split()
    return Fraction(number) * {"KB": 1, "MB": 1000}[unit]


# --- mcu-fit -------------------------------------------------------------------------------------

FIT_CELLS = frozenset(("tinyml", lv) for lv in ("L1", "L2", "L3"))
_FIT_OPENERS = (
    "{who} is putting {model} for {task} on {product}, built around an {mcu}.",
    "{who} is asked whether {model} for {task} can run on the {mcu} already inside {product}.",
    "In a design review for {product}, {who_l} proposes {model} for {task} on an {mcu}.",
    "{who} has trained {model} for {task} and must ship it in {product}, which uses an {mcu}.",
    "A customer wants {task} added to {product}; {who_l} checks {model} against its {mcu}.",
)
_FIT_CHIP = (
    "The {mcu} has {sram} of SRAM and {flash} of flash.",
    "Its datasheet lists {sram} of SRAM and {flash} of flash.",
    "The part offers {flash} of flash and {sram} of SRAM.",
)


def mcu_fit(rng: random.Random, tables: Tables, track: str, level: str) -> Draft | None:
    if (track, level) not in FIT_CELLS:
        return None
    mcu = _mcu(rng, tables)
    sram_t, flash_t = mcu.spec("sram").text, mcu.spec("flash").text
    sram, flash = _kb(sram_t), _kb(flash_t)
    task, model, _, products = pick(rng, TASKS)
    params_k = pick(rng, (20, 35, 50, 80, 120, 180, 250, 300, 420, 600, 800))
    arena = pick(rng, (24, 40, 64, 96, 128, 160, 200, 256, 320))
    firmware = pick(rng, (90, 150, 200, 260, 320))
    reserved = pick(rng, (16, 24, 32, 48, 64))
    slots = {
        "who": pick(rng, WHO),
        "who_l": lower_first(pick(rng, WHO)),
        "model": model,
        "task": task,
        "product": pick(rng, products),
        "mcu": mcu.aliases[0],
        "sram": sram_t,
        "flash": flash_t,
    }
    scenario = pick(rng, _FIT_OPENERS).format(**slots) + " " + pick(rng, _FIT_CHIP).format(**slots)
    w32_text, w32 = shown(params_k * 4)
    w8 = Fraction(params_k)
    flash_left = flash - firmware
    sram_left = sram - reserved
    assumptions = [
        f"Model: {prose(params_k * 1000)} parameters; INT8 weights take 1 byte each, FP32 weights 4.",
        f"{mcu.aliases[0]}: {sram_t} SRAM, {flash_t} flash (datasheet); 1 KB = 1,000 bytes for this estimate.",
    ]
    # At L3 either the flash question or the SRAM one (issue 26: the SRAM diagnosis, once labelled L4,
    # is the same arithmetic).
    variant = pick(rng, ("quantise", "arena")) if level == "L3" else level
    if level == "L1":
        scenario += f" The model has {prose(params_k * 1000)} parameters, quantised to INT8."
        question = pick(
            rng,
            (
                "How much flash do the INT8 weights need?",
                "About how many kilobytes of flash will the INT8 weights occupy?",
                "What is the flash footprint of the INT8 weights?",
            ),
        )
        calculations = [f"{prose(params_k * 1000)} * 1 byte = {fmt(w8)} KB of INT8 weights"]
        verdict = f"About {fmt(w8)} KB: one byte per INT8 weight, stored in flash."
        answer = (
            f"{verdict} The weights are constant, so TensorFlow Lite Micro reads them from flash in place; "
            f"the {mcu.aliases[0]}'s {flash_t} of flash also holds the firmware, so the weights get what is left."
        )
        zone_, bloom = zone(rng, level)
        mistake = (
            "Counting 4 bytes per weight, or putting the weights in SRAM.",
            "Training frameworks store FP32, and on a PC every tensor lives in RAM.",
            "The model is judged too big for a part that would have run it, or SRAM is wasted on constants.",
        )
    elif level == "L2":
        scenario += (
            f" The INT8 model has {prose(params_k * 1000)} parameters and needs a {arena} KB tensor arena; "
            f"the firmware takes {firmware} KB of flash and {reserved} KB of SRAM for stack and buffers."
        )
        question = pick(
            rng,
            (
                "Do the weights fit in flash and the arena in SRAM? Give both margins.",
                "Will the model fit this part, counting flash for weights and SRAM for the arena?",
                "Which memory runs out first, flash or SRAM, if either?",
            ),
        )
        calculations = [
            f"{prose(params_k * 1000)} * 1 byte = {fmt(w8)} KB of INT8 weights",
            f"{fmt(flash)} KB - {firmware} KB = {fmt(flash_left)} KB of flash left for weights",
            f"{fmt(sram)} KB - {reserved} KB = {fmt(sram_left)} KB of SRAM left for the arena",
        ]
        ok_flash, ok_sram = w8 <= flash_left, arena <= sram_left
        verdict = (
            f"Weights {fmt(w8)} KB against {fmt(flash_left)} KB of free flash "
            f"({'fits' if ok_flash else 'does not fit'}); arena {arena} KB against {fmt(sram_left)} KB of free SRAM "
            f"({'fits' if ok_sram else 'does not fit'})."
        )
        answer = f"{verdict} Weights are constants read from flash; the arena holds activations and scratch in SRAM."
        if not (ok_flash and ok_sram):
            answer += " Shrink the model (fewer channels, pruning) or pick a part with more memory."
        zone_, bloom = zone(rng, level, ("fluency", "analyze"))
        mistake = (
            "Adding weights and arena and comparing the sum with SRAM alone.",
            "On a PC everything is loaded into RAM, so one memory budget feels natural.",
            "A model that fits is rejected, or the real limit (the arena in SRAM) is checked against the wrong number.",
        )
    elif variant == "quantise":
        scenario += (
            f" The trained model has {prose(params_k * 1000)} parameters in FP32. "
            f"The firmware already takes {firmware} KB of flash."
        )
        question = pick(
            rng,
            (
                "Do the FP32 weights fit the free flash, and what does INT8 quantisation change?",
                "How much flash does INT8 quantisation free, and is it needed to fit?",
                "Is post-training INT8 quantisation required to fit the weights? Show both sizes.",
            ),
        )
        saved_text, _ = shown(w32 - w8)
        calculations = [
            f"{prose(params_k * 1000)} * 4 bytes = {w32_text} KB of FP32 weights",
            f"{prose(params_k * 1000)} * 1 byte = {fmt(w8)} KB of INT8 weights",
            f"{fmt(flash)} KB - {firmware} KB = {fmt(flash_left)} KB of flash left",
            f"{w32_text} KB - {fmt(w8)} KB = {saved_text} KB saved by INT8",
        ]
        verdict = (
            f"FP32 weights take {w32_text} KB against {fmt(flash_left)} KB free "
            f"({'they fit' if w32 <= flash_left else 'they do not fit'}); INT8 takes {fmt(w8)} KB "
            f"({'fits' if w8 <= flash_left else 'still too big'})."
        )
        answer = (
            f"{verdict} INT8 cuts weight storage by four and lets CMSIS-NN kernels use the SIMD multiply-accumulate "
            f"instructions; validate accuracy on a held-out set after calibration."
        )
        zone_, bloom = zone(rng, level, ("analyze", "implement"))
        mistake = (
            "Assuming quantisation is only about speed and leaving FP32 weights in the build.",
            "On desktop the model runs fine in FP32, so the size problem is invisible until linking.",
            "The firmware image does not link, or a smaller, less accurate model is chosen needlessly.",
        )
    else:
        extra = pick(rng, (8, 12, 20, 32))
        scenario += (
            f" On the bench, AllocateTensors() fails: the INT8 model asks for a {arena} KB arena, the firmware "
            f"reserves {reserved} KB of SRAM for stack and buffers, and a new feature added a {extra} KB buffer."
        )
        question = pick(
            rng,
            (
                "Why does the allocation fail, and by how much must SRAM use shrink?",
                "Is the arena request plausible given the SRAM budget, and what would you cut first?",
                "How far over budget is the SRAM plan, and which lever closes the gap?",
            ),
        )
        need = arena + reserved + extra
        gap = need - sram
        calculations = [
            f"{arena} KB + {reserved} KB + {extra} KB = {need} KB of SRAM wanted",
            f"{need} KB - {fmt(sram)} KB = {fmt(gap)} KB over the {sram_t}",
        ]
        if gap <= 0:
            return None
        verdict = f"The plan needs {need} KB of SRAM but the part has {sram_t}: {fmt(gap)} KB too much."
        answer = (
            f"{verdict} Shrink the arena first: reorder operators or use the memory planner's offline plan, lower "
            f"the input resolution, or split the widest layer; then move the new buffer to a reused region."
        )
        zone_, bloom = zone(rng, level, ("diagnosis",))
        mistake = (
            "Moving the weights out of SRAM or trying a smaller flash layout.",
            "AllocateTensors() failing sounds like the model file is too big.",
            "Days go into the flash layout while the activation arena, the real SRAM consumer, stays the same.",
        )
    return Draft(
        track=track,
        competency_area="memory",
        topic="tensor-arena-planning",
        level=level,
        zone=zone_,
        bloom_level=bloom,
        phase="inference",
        title=pick(
            rng,
            (
                "Fitting a {t} Model Into an {m}",
                "Flash and SRAM Budget for {t} on the {m}",
                "{t} on an {m}: Weights in Flash, Arena in SRAM",
                "Memory Check for a {t} Network on an {m}",
                "Will a {k}K-Parameter {t} Model Fit an {m}",
            ),
        ).format(t=task.title(), m=mcu.aliases[0], k=params_k),
        scenario=scenario,
        question=question,
        solution=answer,
        mistake=mistake,
        assumptions=assumptions,
        calculations=calculations,
        conclusion=[verdict],
        family="mcu-fit",
        params={
            "device": mcu.key,
            "params_k": params_k,
            "arena_kb": arena,
            "firmware_kb": firmware,
            "variant": variant,
        },
        minutes={"L1": 2, "L2": 4, "L3": 6}[level],
    )


# --- mcu-latency ---------------------------------------------------------------------------------

LATENCY_CELLS = frozenset(("tinyml", lv) for lv in ("L2", "L3"))
_LAT_OPENERS = (
    "{who} profiles {model} for {task} in {product} on an {mcu} at its {clock} maximum clock.",
    "{product_u} runs {model} for {task} on an {mcu} clocked at {clock}.",
    "For {product}, {who_l} must decide whether an {mcu} ({clock}) can run {model} for {task}.",
    "A datasheet-level estimate is needed before prototyping {task} in {product} on an {mcu} at {clock}.",
)


def _lever(factor: Fraction, factor_text: str, eff: Fraction) -> str:
    """Which lever closes a load gap of `factor` (over 1), for kernels now at `eff` MACs per cycle."""
    if factor <= 1 / eff:
        return (
            f"Better kernels alone can do it if they reach 1 MAC per cycle on this core: from {fmt(eff)} that is a "
            f"{fmt(1 / eff)}x gain, enough for the {factor_text}x needed, with no change to the model or the board."
        )
    if factor <= 4:
        return (
            f"Kernels cannot close a {factor_text}x gap alone; a smaller model (fewer MACs: a narrower network, a "
            f"smaller input, a lower frame rate) is the next lever, and a faster part the fallback."
        )
    return (
        f"A {factor_text}x gap needs a much smaller model or a different class of part, such as one with an NPU; "
        f"kernel tuning will not close it."
    )


def mcu_latency(rng: random.Random, tables: Tables, track: str, level: str) -> Draft | None:
    if (track, level) not in LATENCY_CELLS:
        return None
    mcu = _mcu(rng, tables)
    clock = mcu.spec("clock")
    mhz = Fraction(clock.text.split()[0])
    task, model, unit, products = pick(rng, TASKS)
    product = pick(rng, products)
    macs = Fraction(pick(rng, ("0.5", "1", "2", "2.5", "4", "6", "8", "12", "20", "30")))
    eff = Fraction(pick(rng, ("0.25", "0.5", "0.75", "1")))
    period = pick(rng, (20, 32, 40, 50, 100, 125, 200, 250, 500, 1000))
    slots = {
        "who": pick(rng, WHO),
        "who_l": lower_first(pick(rng, WHO)),
        "model": model,
        "task": task,
        "product": product,
        "product_u": product[0].upper() + product[1:],
        "mcu": mcu.aliases[0],
        "clock": clock.text,
    }
    scenario = pick(rng, _LAT_OPENERS).format(**slots)
    scenario += (
        f" The model needs {fmt(macs)} million multiply-accumulates (MACs) per {unit}, and the INT8 kernels "
        f"sustain about {fmt(eff)} MAC{'' if eff == 1 else 's'} per cycle. A new {unit} arrives every {period} ms."
    )
    t_text, t = shown(Fraction(macs) * 1000 / (mhz * eff))  # ms
    load_text, load = shown(t / period * 100)
    calculations = [
        f"{fmt(macs)}M MACs / ({fmt(mhz)} MHz * {fmt(eff)}) = {t_text} ms per inference",
        f"{t_text} ms / {period} ms = {load_text}% of the period busy",
    ]
    fits = t <= period
    verdict = f"One inference takes about {t_text} ms, {load_text}% of the {period} ms period: " + (
        "it keeps up." if fits else "it cannot keep up."
    )
    variant = "latency" if level == "L2" else pick(rng, ("load", "lever", "budget"))
    if variant == "latency":
        question = pick(
            rng,
            (
                "How long does one inference take, and does it keep up with the input rate?",
                f"Can the {mcu.aliases[0]} finish each inference before the next {unit} arrives?",
                "What is the per-inference latency at this clock?",
            ),
        )
        zone_, bloom = zone(rng, level, ("fluency", "analyze"))
    elif variant == "load":
        question = pick(
            rng,
            (
                "What fraction of the CPU does inference use, and how much time is left for the rest of the firmware?",
                "Estimate latency and CPU load; is there room for the radio stack and sensor handling?",
            ),
        )
        zone_, bloom = zone(rng, level, ("analyze",))
    elif variant == "lever":
        if load <= 50:
            return None  # nothing to get under 50%
        question = "Which lever gets the load under 50%: a lower MAC count, better kernels or a faster part?"
        zone_, bloom = zone(rng, level, ("analyze",))
        factor_text, factor = shown(load / 50)
        calculations.append(f"{load_text}% / 50% = {factor_text}, the factor the load must fall by")
        verdict += " " + _lever(factor, factor_text, eff)
    else:
        budget = pick(rng, (25, 40, 50))
        question = f"Specify the model budget: how many MACs per {unit} keep inference under {budget}% of the CPU on this part?"
        max_text, _ = shown(Fraction(budget, 100) * period * mhz * eff / 1000)
        calculations.append(
            f"{budget}% * {period} ms * {fmt(mhz)} MHz * {fmt(eff)} = {max_text}M MACs allowed per {unit}"
        )
        verdict += f" To stay under {budget}%, the model may spend about {max_text} million MACs per {unit}."
        zone_, bloom = zone(rng, level, ("analyze", "implement"))
    answer = (
        f"{verdict} Latency is MACs over clock times MACs per cycle; on Cortex-M parts the INT8 CMSIS-NN kernels set "
        f"that last figure, so check the build uses them before blaming the model."
    )
    return Draft(
        track=track,
        competency_area="latency" if variant in ("latency", "load") else "compute",
        topic="real-time-deadlines" if variant in ("latency", "load") else "mcu-compute-constraints",
        level=level,
        zone=zone_,
        bloom_level=bloom,
        phase="inference",
        title=pick(
            rng,
            (
                "Inference Latency of a {m}M-MAC Model on an {d}",
                "Can an {d} at {c} Keep Up with {t}",
                "CPU Load of {t} on an {d}",
                "MAC Budget for {t} on an {d}",
                "Real-Time Check for {t} on an {d} at {c}",
            ),
        ).format(m=fmt(macs), d=mcu.aliases[0], c=clock.text, t=task.title()),
        scenario=scenario,
        question=question,
        solution=answer,
        mistake=(
            "Dividing MACs by the clock as if the core did one MAC per cycle with no overhead, or using FLOPs.",
            "Clock rate is the one number on the datasheet front page.",
            "Latency is underestimated several-fold and the product misses its real-time deadline.",
        ),
        assumptions=[
            f"{mcu.aliases[0]}: {clock.text} clock (datasheet).",
            f"{fmt(macs)}M MACs per {unit}; about {fmt(eff)} MACs per cycle for the INT8 kernels (measured on a similar core).",
            f"One {unit} every {period} ms.",
        ],
        calculations=calculations,
        conclusion=[verdict],
        family="mcu-latency",
        params={
            "device": mcu.key,
            "mmacs": fmt(macs),
            "macs_per_cycle": fmt(eff),
            "period_ms": period,
            "variant": variant,
        },
        minutes={"L2": 3, "L3": 5}[level],
    )


# --- battery-life --------------------------------------------------------------------------------

BATTERY_CELLS = frozenset(("tinyml", lv) for lv in ("L2", "L3"))


@dataclass(frozen=True)
class Battery:
    text: str  # as a scenario names it
    mah: int  # nominal capacity
    title: str
    max_ma: int  # the largest burst current it is rated to deliver


# Nominal capacities and pulse ratings are typical datasheet figures (Energizer CR2032 and CR2477,
# Energizer E91 AA, small LiPo pouches at 1C, an 18650 Li-ion cell).
BATTERIES = {
    "cr2032": Battery("a CR2032 coin cell", 220, "a CR2032 Coin Cell", 8),
    "cr2477": Battery("a CR2477 coin cell", 1000, "a CR2477 Coin Cell", 8),
    "aa": Battery("two AA alkaline cells", 2500, "Two AA Cells", 500),
    "lipo-20": Battery("a 20 mAh LiPo", 20, "a 20 mAh LiPo", 20),
    "lipo-150": Battery("a 150 mAh LiPo", 150, "a 150 mAh LiPo", 150),
    "lipo-500": Battery("a 500 mAh LiPo pouch", 500, "a 500 mAh LiPo", 500),
    "lipo-1000": Battery("a 1,000 mAh LiPo", 1000, "a 1,000 mAh LiPo", 1000),
    "18650": Battery("an 18650 cell", 3000, "an 18650 Cell", 3000),
}
# What each product of TASKS can hold (issue 26: a ring, a band or a hearing device has room for a
# coin cell or a small LiPo, never AA or 18650 cells).
POWERED_BY = {
    "a smart light switch": ("cr2032", "cr2477"),
    "a toy robot": ("aa", "lipo-500"),
    "a TV remote": ("aa",),
    "a hearing-aid companion": ("lipo-150",),
    "a smart speaker": ("lipo-1000", "18650"),
    "a smart doorbell": ("18650",),
    "an occupancy sensor": ("aa", "cr2477"),
    "a factory motor monitor": ("aa", "18650"),
    "a pump monitor": ("aa", "18650"),
    "a fitness band": ("lipo-150",),
    "a smart ring": ("lipo-20",),
    "a game controller": ("aa", "lipo-1000"),
    "a forest acoustic monitor": ("aa", "18650"),
    "a garden bird feeder": ("aa", "18650"),
    "an elder-care wearable": ("lipo-150",),
    "a smart walking stick": ("aa", "lipo-1000", "18650"),
    "a battery-powered pest trap": ("aa", "18650"),
    "a greenhouse node": ("aa", "18650"),
    "a pipeline leak sensor": ("aa", "18650"),
    "a water-meter add-on": ("aa", "cr2477"),
    "a beehive monitor": ("aa", "18650"),
}


# Run currents the scenarios quote as bench measurements, by part: magnitudes only, so that a 480 MHz
# Cortex-M7 is not shown drawing what a 64 MHz Cortex-M4 does. The vendors' datasheets (run-mode
# supply current tables) put the nRF52840 at a few mA, the RP2040 near 20 mA, and the STM32F4/F7/H7
# and ESP32-S3 at tens of mA to over a hundred at full clock.
ACTIVE_MA = {
    "nrf52840": (3, 5, 8),
    "rp2040": (12, 20, 30),
    "stm32f407": (20, 30, 45),
    "esp32-s3": (30, 45, 80),
    "stm32f746": (45, 80, 120),
    "stm32h743": (60, 100, 150),
}
# Sleep currents between bursts, by part, in the lowest mode that wakes on a timer: nRF52840 product
# specification (System ON idle with RTC, about 3 uA); ESP32-S3 datasheet (Deep-sleep with RTC
# timer, about 8 uA); STM32F4/F7/H7 datasheets (Standby with RTC, a few uA; SRAM is lost, so the
# firmware boots on every wake); RP2040 datasheet (DORMANT, about 0.18 mA: issue 26 found drills
# quoting 2 to 50 uA for it).
SLEEP_UA = {
    "nrf52840": (2, 3, 5),
    "rp2040": (180, 200),
    "stm32f407": (3, 5),
    "esp32-s3": (8, 10, 20),
    "stm32f746": (3, 5),
    "stm32h743": (4, 6),
}


def _interval(
    need: Fraction,
    need_text: str,
    sleep_ua: int,
    active_ma: int,
    burst_ms: int,
    every_s: int,
    calculations: list[str],
) -> str:
    """The wake interval and burst budget that fit an allowed average current (appends its lines)."""
    left = need - Fraction(sleep_ua, 1000)
    if left <= 0:
        return f" The {sleep_ua} uA sleep floor alone is over that: only a lower-leakage sleep mode or a bigger cell helps."
    left_text, left = shown(left, 3)
    _, gap = shown(Fraction(active_ma * burst_ms) / left, 3)
    calculations += [
        f"{need_text} mA - {sleep_ua} uA = {left_text} mA for the bursts",
        f"{active_ma} mA * {burst_ms} ms / {left_text} mA = {prose(gap)} ms, the shortest wake interval",
    ]
    spec = (
        f" That leaves {left_text} mA for bursts: each {burst_ms} ms burst at {active_ma} mA needs a wake interval of "
        f"at least {prose(gap / 1000)} s"
    )
    if gap <= every_s * 1000:
        return (
            spec + f", so the {every_s} s design meets the target; the margin can buy a longer burst instead."
        )
    return spec + f", against {every_s} s today: wake less often or shorten the burst in proportion."


def battery_life(rng: random.Random, tables: Tables, track: str, level: str) -> Draft | None:
    if (track, level) not in BATTERY_CELLS:
        return None
    mcu = _mcu(rng, tables)
    task, model, unit, products = pick(rng, TASKS)
    active_ma = pick(rng, ACTIVE_MA[mcu.key])
    product = pick(rng, products)
    fitting = [BATTERIES[k] for k in POWERED_BY[product] if active_ma <= BATTERIES[k].max_ma]
    if not fitting:
        return None  # this part's bursts are too much for any cell the product can hold
    cell = pick(rng, fitting)
    battery, mah = cell.text, cell.mah
    sleep_ua = pick(rng, SLEEP_UA[mcu.key])
    burst_ms = pick(rng, (10, 20, 40, 80, 150, 300))
    every_s = pick(rng, (1, 2, 5, 10, 30, 60))
    opener = pick(
        rng,
        (
            "{who} designs {product} that runs {model} for {task} on an {mcu}, powered by {battery}.",
            "{product_u} runs {model} for {task} on an {mcu}; the enclosure has room for {battery}.",
            "A pilot of {product} ({task} with {model} on an {mcu}) must run from {battery}.",
            "{who} is asked for a battery-life figure for the datasheet of {product}: {task} on an {mcu}, "
            "from {battery}.",
            "Field units of {product}, doing {task} on an {mcu} from {battery}, are being re-specified.",
        ),
    )
    scenario = opener.format(
        who=pick(rng, WHO),
        product=product,
        product_u=product[0].upper() + product[1:],
        model=model,
        task=task,
        mcu=mcu.aliases[0],
        battery=battery if "mAh" in battery else f"{battery} ({prose(mah)} mAh)",
    )
    scenario += pick(
        rng,
        (
            f" Every {every_s} s it wakes, captures {article(unit)} and runs inference for {burst_ms} ms at {active_ma} mA, "
            f"then sleeps at {sleep_ua} uA.",
            f" The bench meter shows {active_ma} mA for {burst_ms} ms per {unit}, one {unit} every {every_s} s, and "
            f"{sleep_ua} uA asleep.",
            f" Each wake-up (once per {every_s} s) draws {active_ma} mA for {burst_ms} ms; between wake-ups the part "
            f"sleeps at {sleep_ua} uA.",
        ),
    )
    period_ms = every_s * 1000
    duty_text, duty = shown(Fraction(active_ma) * burst_ms / period_ms, 3)
    avg_text, avg = shown(duty + Fraction(sleep_ua, 1000), 3)
    hours_text, hours = shown(mah / avg, 3)
    days_text, days = shown(hours / 24, 3)
    calculations = [
        f"{active_ma} mA * {burst_ms} ms / {prose(period_ms)} ms = {duty_text} mA from the active bursts",
        f"{duty_text} mA + {sleep_ua} uA = {avg_text} mA average",
        f"{prose(mah)} mAh / {avg_text} mA = {prose(hours)} h",
        f"{prose(hours)} h = {prose(days)} days",
    ]
    verdict = f"About {prose(days)} days on the nominal capacity, drawing {avg_text} mA on average."
    sleep_ma = Fraction(sleep_ua, 1000)
    bursts_dominate = duty > sleep_ma
    verdict += (
        f" The bursts dominate: {duty_text} mA of the {avg_text}, against {sleep_ua} uA asleep."
        if bursts_dominate
        else f" The sleep floor dominates: {sleep_ua} uA against {duty_text} mA of bursts."
    )
    variant = "life" if level == "L2" else pick(rng, ("dominates", "double", "target"))
    if variant == "life":
        question = "How long will the battery last, ignoring self-discharge?"
        zone_, bloom = zone(rng, level, ("fluency", "analyze"))
    elif variant == "dominates":
        question = pick(
            rng,
            (
                "Which dominates the average current, the bursts or sleep, and what battery life follows?",
                "Estimate battery life and say which current matters most.",
            ),
        )
        zone_, bloom = zone(rng, level, ("analyze",))
    elif variant == "double":
        question = "Marketing wants twice the battery life. Which single change gets there most cheaply?"
        half_text, half = shown(avg / 2, 3)
        calculations.append(f"{avg_text} mA / 2 = {half_text} mA average for twice the life")
        if sleep_ma < half:
            left_text, left = shown(half - sleep_ma, 3)
            ratio_text, _ = shown(duty / left, 3)
            calculations += [
                f"{half_text} mA - {sleep_ua} uA = {left_text} mA left for the bursts",
                f"{duty_text} mA / {left_text} mA = {ratio_text}, the factor the bursts must shrink by",
            ]
            verdict += (
                f" Twice the life needs {half_text} mA on average, so the bursts must fall from {duty_text} to "
                f"{left_text} mA, a factor of {ratio_text}: waking that much less often, or finishing each burst that "
                f"much sooner. A longer wake interval is usually the cheapest, since it changes nothing in the model."
            )
        else:
            verdict += (
                f" Twice the life needs {half_text} mA on average, below the {sleep_ua} uA sleep floor alone: no "
                f"change to the bursts can get there, only a lower-leakage sleep mode or a bigger battery."
            )
        zone_, bloom = zone(rng, level, ("analyze",))
    else:
        target = pick(rng, (180, 365, 730))
        question = (
            f"What wake interval reaches {target} days with a 20% capacity derating, at the same burst?"
        )
        need_text, need = shown(Fraction(mah) * Fraction(8, 10) / (target * 24), 3)
        calculations.append(f"{prose(mah)} mAh * 0.8 / ({target} * 24 h) = {need_text} mA average allowed")
        verdict += f" Reaching {target} days with 20% derating allows {need_text} mA average." + _interval(
            need, need_text, sleep_ua, active_ma, burst_ms, every_s, calculations
        )
        zone_, bloom = zone(rng, level, ("analyze", "implement"))
    answer = (
        f"{verdict} Average current is the active current weighted by duty cycle plus the sleep floor; whichever term "
        f"is larger is the one to attack (shorter or rarer bursts, or a lower-leakage sleep mode). Real cells deliver "
        f"less than nominal at low temperature and high pulse current, so derate before promising a figure."
    )
    # The mistake is the one this draw punishes: ignoring the term that dominates its own average.
    if bursts_dominate:
        off_text, _ = shown(avg / sleep_ma, 2)
        mistake = (
            "Dividing the capacity by the sleep current, the figure on the datasheet's low-power page.",
            "The part sleeps almost all the time, so the sleep current looks like the average.",
            f"Here the bursts dominate, so the estimate comes out about {off_text} times too long and the product "
            f"ships with a cell that dies early.",
        )
    else:
        off_text, _ = shown(avg / duty, 2)
        mistake = (
            "Counting only the bursts (active current times duty cycle) and leaving out the sleep current.",
            "Inference is the work the team optimises, and the sleep current looks negligible next to it.",
            f"Here the sleep floor dominates, so the estimate comes out about {off_text} times too long, and "
            f"shrinking the model does almost nothing for battery life.",
        )
    return Draft(
        track=track,
        competency_area="power",
        topic="duty-cycling",
        level=level,
        zone=zone_,
        bloom_level=bloom,
        phase="inference",
        title=pick(
            rng,
            (
                "Battery Life of {a_p} on {b}",
                "Duty-Cycled {t} on an {d}: How Long Does {b} Last",
                "Average Current of a {s}-Second Wake Cycle on an {d}",
                "Power Budget for {t} Every {s} Seconds",
            ),
        ).format(
            a_p=article(product.removeprefix("a ").removeprefix("an ").title()),
            b=cell.title,
            t=task.title(),
            d=mcu.aliases[0],
            s=every_s,
        ),
        scenario=scenario,
        question=question,
        solution=answer,
        mistake=mistake,
        assumptions=[
            f"{battery[0].upper()}{battery[1:]}: {prose(mah)} mAh nominal.",
            f"Active {active_ma} mA for {burst_ms} ms every {every_s} s; sleep {sleep_ua} uA (measured).",
        ],
        calculations=calculations,
        conclusion=[verdict],
        family="battery-life",
        params={
            "device": mcu.key,
            "battery_mah": mah,
            "active_ma": active_ma,
            "sleep_ua": sleep_ua,
            "burst_ms": burst_ms,
            "every_s": every_s,
            "variant": variant,
        },
        minutes={"L2": 4, "L3": 6}[level],
    )
