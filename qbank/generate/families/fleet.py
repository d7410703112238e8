"""Fleet-scale drills: energy and carbon of a GPU job, GPUs to serve a load, energy of an on-device
feature.

Formulas (standard):
  facility energy = GPUs x board power x hours x PUE (The Green Grid, PUE definition)
  emissions = energy x grid carbon intensity (location-based, GHG Protocol Scope 2 guidance)
  GPUs needed = peak tokens/s wanted / (tokens/s one GPU sustains x target utilisation)
  energy per use = power x time; share of a battery = daily energy / battery energy
GPU board powers and Jetson power modes come from the sourced hardware table; grid intensities,
prices and measured throughputs are the scenario's own inputs, stated as assumptions.
"""

from __future__ import annotations

import random
from fractions import Fraction

from qbank.generate.draft import Draft
from qbank.generate.english import lower_first
from qbank.generate.families.cluster import PRICES
from qbank.generate.families.common import CLOUD_TEAMS, CLOUD_USES, pick, zone
from qbank.generate.numbers import ceil, fmt, prose, shown
from qbank.generate.tables import Tables

GPUS = ("v100", "a100-40gb", "a100-80gb", "h100-sxm", "h100-pcie", "h200", "b200", "l4", "mi300x")
REGIONS = (  # illustrative grid intensities in kg CO2e per kWh, stated as assumptions in each question
    ("a coal-heavy grid", Fraction(7, 10)),
    ("an average US grid", Fraction(2, 5)),
    ("a gas-dominated grid", Fraction(9, 20)),
    ("an average EU grid", Fraction(1, 4)),
    ("a hydro-powered region", Fraction(3, 100)),
    ("a nuclear-heavy grid", Fraction(1, 20)),
    ("a wind-rich region at night", Fraction(1, 10)),
)
JOBS = (
    "fine-tuning run",
    "hyperparameter sweep",
    "pre-training run",
    "nightly batch-inference job",
    "evaluation campaign",
    "distillation run",
    "reinforcement-learning fine-tune",
)


def _gpu_name(tables: Tables, key: str) -> str:
    device = tables.hardware.devices[key]
    return "H100 SXM" if key == "h100-sxm" else device.aliases[0]


# --- carbon --------------------------------------------------------------------------------------

CARBON_CELLS = frozenset(("global", lv) for lv in ("L1", "L2", "L3"))


def carbon(rng: random.Random, tables: Tables, track: str, level: str) -> Draft | None:
    if (track, level) not in CARBON_CELLS:
        return None
    key = pick(rng, GPUS)
    tdp = tables.hardware.devices[key].spec("tdp")
    watts = Fraction(tdp.text.split()[0])
    name = _gpu_name(tables, key)
    n = pick(rng, (8, 16, 32, 64, 128, 256, 512, 1024))
    hours = pick(rng, (12, 24, 48, 72, 100, 168, 240, 336, 500, 720))
    pue = pick(rng, (Fraction(11, 10), Fraction(6, 5), Fraction(13, 10), Fraction(3, 2)))
    region, grid = pick(rng, REGIONS)
    other, grid2 = pick(rng, [r for r in REGIONS if r[0] != region])
    job, team = pick(rng, JOBS), pick(rng, CLOUD_TEAMS)
    it_text, it = shown(Fraction(n) * watts * hours / 1000)  # kWh
    fac_text, fac = shown(it * pue)
    co2_text, co2 = shown(fac * grid)
    co2b_text, co2b = shown(fac * grid2)
    scenario = pick(
        rng,
        (
            f"{team} runs a {job} on {n} {name} GPUs for {hours} hours in a data centre on {region}.",
            f"A sustainability report asks {lower_first(team)} for the footprint of last quarter's {job}: {n} {name} "
            f"GPUs for {hours} hours, hosted on {region}.",
            f"Before approving a {job} ({n} {name} GPUs, {hours} hours), a review board wants its energy and "
            f"emissions; the cluster sits on {region}.",
            f"{team} compares where to place a {job} that needs {n} {name} GPUs for {hours} hours; the default "
            f"site is on {region}.",
        ),
    )
    scenario += (
        f" Take each GPU at its {tdp.text} board power, a facility PUE of {fmt(pue)} and a grid intensity of "
        f"{fmt(grid)} kg CO2e per kWh."
    )
    calculations = [f"{n} * {tdp.text} * {hours} h = {prose(it)} kWh at the GPUs"]
    move = level == "L3" and rng.random() >= 0.5  # at L3: the overhead question, or a move to `other`
    if level == "L1":
        question = pick(
            rng,
            (
                "How much energy do the GPUs draw over the job, in kWh?",
                "What is the GPU energy of this job, ignoring the facility?",
            ),
        )
        verdict = f"About {prose(it)} kWh at the GPUs: count times board power times hours."
        zone_, bloom = zone(rng, level)
    else:
        calculations += [
            f"{prose(it)} kWh * {fmt(pue)} = {prose(fac)} kWh at the meter",
            f"{prose(fac)} kWh * {fmt(grid)} kg/kWh = {prose(co2)} kg CO2e",
        ]
        verdict = f"About {prose(fac)} kWh at the meter and {prose(co2)} kg CO2e."
        if level == "L2":
            question = pick(
                rng,
                (
                    "What are the job's facility energy and its location-based emissions?",
                    "How many kWh does the facility draw for this job, and how much CO2e does that mean?",
                    "Compute the energy at the meter and the emissions in kg CO2e.",
                ),
            )
            zone_, bloom = zone(rng, level, ("fluency", "analyze"))
        elif not move:
            question = pick(
                rng,
                (
                    "Estimate the emissions, and say which input moves the answer most.",
                    "How many tonnes of CO2e does the job emit, and how much of that is facility overhead?",
                ),
            )
            over_text, _ = shown(fac - it)
            calculations.append(
                f"{prose(fac)} kWh - {prose(it)} kWh = {prose(Fraction(over_text))} kWh of overhead"
            )
            verdict += f" Facility overhead is {prose(Fraction(over_text))} kWh of it."
            zone_, bloom = zone(rng, level, ("analyze",))
        else:
            question = (
                f"Moving the job to {other} ({fmt(grid2)} kg CO2e per kWh) adds a day of data transfer. "
                f"Is the move worth it?"
            )
            calculations.append(f"{prose(fac)} kWh * {fmt(grid2)} kg/kWh = {prose(co2b)} kg CO2e on {other}")
            verdict += f" On {other} it would be {prose(co2b)} kg CO2e: " + (
                f"the move saves {prose(co2 - co2b)} kg, worth a day's delay unless the deadline is tight."
                if co2b < co2
                else "the move would raise emissions, so the job stays."
            )
            zone_, bloom = zone(rng, level, ("analyze",))
    answer = (
        f"{verdict} Energy is GPUs times board power times hours, scaled by PUE for cooling and power "
        f"distribution; emissions multiply by the grid's intensity. Board power is an upper bound (GPUs rarely "
        f"sit at TDP), and hosts, networking and storage add on top, so measure before publishing a number."
    )
    if move:
        answer += (
            " The biggest lever is where and when the job runs: grid intensity varies by more than ten times "
            "between regions and by hour; next come utilisation (fewer idle GPU-hours) and efficiency (a newer "
            "GPU or lower precision finishing sooner)."
        )
    return Draft(
        track=track,
        competency_area="cross-cutting",
        topic="sustainability-carbon-accounting",
        level=level,
        zone=zone_,
        bloom_level=bloom,
        phase="training" if "inference" not in job else "inference",
        title=pick(
            rng,
            (
                "Energy and Carbon of a {h}-Hour {j} on {n} {d} GPUs",
                "Carbon Footprint of {n} {d} GPUs for {h} Hours",
                "Kilowatt-Hours and CO2e of a {d} {j}",
                "Where Should a {n}-GPU {j} Run for Lower Carbon",
                "Facility Energy of {n} {d} GPUs at PUE {p}",
            ),
        ).format(h=hours, j=job.title(), n=n, d=name, p=fmt(pue)),
        scenario=scenario,
        question=question,
        solution=answer,
        mistake=(
            "Forgetting PUE, or multiplying GPU power by hours without the GPU count.",
            "The GPU's wattage is the visible number and the facility overhead is invisible from a notebook.",
            "The footprint is understated by the overhead factor or by orders of magnitude, and the report fails audit.",
        ),
        assumptions=[
            f"{n} {name} GPUs at {tdp.text} board power (datasheet) for {hours} h.",
            f"PUE {fmt(pue)}; {region}: {fmt(grid)} kg CO2e per kWh (illustrative).",
        ],
        calculations=calculations,
        conclusion=[verdict],
        family="carbon",
        params={
            "device": key,
            "gpus": n,
            "hours": hours,
            "pue": fmt(pue),
            "grid": fmt(grid),
            "other": fmt(grid2),
        },
        minutes={"L1": 2, "L2": 4, "L3": 6}[level],
    )


# --- serving-fleet -------------------------------------------------------------------------------

FLEET_CELLS = frozenset({("cloud", "L3"), ("global", "L3")})


def _tensor_parallel(params_b: Fraction, memory_gb: Fraction) -> int | None:
    """GPUs per replica: the smallest power of two whose memory holds the BF16 weights with 30% to spare."""
    for tp in (1, 2, 4, 8):
        if params_b * 2 <= tp * memory_gb * Fraction(7, 10):
            return tp
    return None


def _tokens_per_gpu(params_b: Fraction) -> tuple[int, ...]:
    """Plausible measured decode throughputs per GPU at a latency target, by model size."""
    if params_b <= 10:
        return (1500, 2500, 4000)
    if params_b <= 20:
        return (800, 1200, 1800)
    if params_b <= 80:
        return (300, 500, 800)
    return (150, 250)


def serving_fleet(rng: random.Random, tables: Tables, track: str, level: str) -> Draft | None:
    if (track, level) not in FLEET_CELLS:
        return None
    key = pick(rng, [k for k in GPUS if k in PRICES])
    device = tables.hardware.devices[key]
    name = _gpu_name(tables, key)
    model = tables.models[pick(rng, sorted(tables.models))]
    tp = _tensor_parallel(model.params, device.spec("memory").low / 10**9)
    if tp is None:
        return None
    price = PRICES[key]
    use, team = pick(rng, CLOUD_USES), pick(rng, CLOUD_TEAMS)
    rps = pick(rng, (20, 50, 80, 120, 200, 400, 800))
    out_tokens = pick(rng, (150, 250, 400, 600, 1000))
    per_gpu = pick(rng, _tokens_per_gpu(model.params))
    util = Fraction(pick(rng, ("0.5", "0.6", "0.7")))
    want = rps * out_tokens
    need_text, need = shown(Fraction(want) / (per_gpu * util), 4)
    replicas_text, replicas_exact = shown(need / tp, 4)
    replicas = ceil(replicas_exact)
    gpus = replicas * tp
    month = gpus * price * 730
    layout = "one GPU" if tp == 1 else f"{tp} GPUs with tensor parallelism"
    scenario = pick(
        rng,
        (
            f"{team} is launching {use} on {model.name}. Peak traffic is forecast at {rps} requests per second, "
            f"each generating about {out_tokens} output tokens.",
            f"A capacity review for {use} ({model.name}) must size the GPU fleet: peak load is {rps} requests per "
            f"second averaging {out_tokens} output tokens each.",
            f"{team} serves {model.name} for {use}; the growth forecast puts next quarter's peak at {rps} requests "
            f"per second of about {out_tokens} output tokens.",
        ),
    )
    scenario += pick(
        rng,
        (
            f" Each replica runs on {layout}; a load test shows {prose(per_gpu)} output tokens per second per GPU at "
            f"the latency target with continuous batching.",
            f" A replica spans {layout}, and benchmarks reach {prose(per_gpu)} generated tokens per second per "
            f"{name} while meeting the latency SLO.",
            f" With vLLM-style batching on {layout} per replica, each {name} holds the SLO up to {prose(per_gpu)} "
            f"output tokens per second.",
        ),
    )
    scenario += pick(
        rng,
        (
            f" The GPUs are {name}s at ${price} per hour, and the fleet should run at no more than "
            f"{fmt(util * 100)}% of that throughput at peak.",
            f" Policy caps peak utilisation at {fmt(util * 100)}%, and the provider charges ${price} per {name}-hour.",
            f" Finance quotes ${price} an hour per {name}; SRE wants {fmt(util * 100)}% as the peak utilisation "
            f"ceiling.",
        ),
    )
    calculations = [
        f"{rps} * {out_tokens} = {prose(want)} tokens/s at peak",
        f"{prose(want)} / ({prose(per_gpu)} * {fmt(util)}) = {need_text} GPUs of throughput",
    ]
    if tp > 1:
        calculations.append(f"{need_text} / {tp} = {replicas_text} replicas, so {replicas} of {tp} GPUs each")
    calculations += [
        f"{replicas} * {tp} = {gpus} GPUs",
        f"{gpus} * {price} * 730 = {prose(month)} dollars per month",
    ]
    verdict = (
        f"{gpus} GPUs ({replicas} replicas of {tp}), about ${prose(month)} a month if run around the clock."
        if tp > 1
        else f"{gpus} GPUs, about ${prose(month)} a month if run around the clock."
    )
    variant = pick(rng, ("size", "cap", "zones"))
    if variant == "size":
        question = pick(
            rng,
            (
                "How many GPUs does peak need, and what does the fleet cost per month?",
                "Size the fleet for peak and price it per month.",
            ),
        )
        zone_, bloom = zone(rng, level, ("analyze",))
    elif variant == "cap":
        question = pick(
            rng,
            (
                "Size the fleet, then say what changes if the utilisation cap is raised to 90%.",
                "Finance asks to run the GPUs at 90% instead. How many GPUs would that save, and what is the risk?",
            ),
        )
        hot_text, _ = shown(Fraction(want) / (per_gpu * Fraction(9, 10)), 4)
        hot = ceil(Fraction(hot_text) / tp) * tp
        wait_text, _ = shown(util / (1 - util), 3)
        calculations += [
            f"{prose(want)} / ({prose(per_gpu)} * 0.9) = {hot_text} GPUs at a 90% cap, so {hot} GPUs",
            f"{fmt(util)} / (1 - {fmt(util)}) = {wait_text} against 0.9 / (1 - 0.9) = 9 for queueing delay",
        ]
        verdict += (
            f" A 90% cap would need {hot} GPUs, but queueing delay in an M/M/1 model grows as u/(1-u): from "
            f"{wait_text} to 9 service times, so the latency target breaks on any burst."
        )
        zone_, bloom = zone(rng, level, ("analyze",))
    else:
        question = pick(
            rng,
            (
                "Specify the fleet across three zones so that losing any one zone still carries peak, and its cost.",
                "Design the capacity plan: replicas per zone over three zones with one zone down, and the monthly "
                "cost.",
            ),
        )
        per_zone = ceil(Fraction(replicas, 2))
        total = 3 * per_zone * tp
        calculations.append(
            f"3 * {per_zone} * {tp} = {total} GPUs over three zones, any two carrying {2 * per_zone} replicas"
        )
        verdict += (
            f" To survive a zone outage with three zones, each holds {per_zone} replicas: {total} GPUs."
        )
        zone_, bloom = zone(rng, level, ("analyze",))
    answer = (
        f"{verdict} Size from tokens per second, not requests: the GPU's throughput is measured in tokens at the "
        f"latency target, and the utilisation cap keeps queueing delay bounded at peak. Off-peak, scale down or fill "
        f"the fleet with batch work, since paying for peak around the clock is the largest waste."
    )
    if variant == "zones":
        answer += (
            " The levers: quantised weights (FP8 or INT8) and speculative decoding raise tokens per GPU, prefix "
            "caching cuts prompt work, and shorter default outputs cut tokens per request; each moves the GPU count "
            "in proportion."
        )
    return Draft(
        track=track,
        competency_area="latency" if track == "cloud" else "cross-cutting",
        topic="queueing-theory" if track == "cloud" else "tco-cost-modeling",
        level=level,
        zone=zone_,
        bloom_level=bloom,
        phase="inference",
        title=pick(
            rng,
            (
                "Sizing a {d} Fleet for {r} Requests per Second of {m}",
                "How Many {d} GPUs Serve {r} RPS of {m}",
                "GPU Count and Monthly Cost for {m} at Peak",
                "Capacity Plan for {m} on {d} GPUs",
            ),
        ).format(d=name, r=rps, m=model.name),
        scenario=scenario,
        question=question,
        solution=answer,
        mistake=(
            "Dividing requests per second by a per-GPU request rate measured at batch 1, or planning for 100% "
            "utilisation.",
            "Requests are what the product team forecasts, and 100% looks like the efficient target.",
            "The fleet is either several times too large, or queueing delay explodes at peak and the latency "
            "target is missed.",
        ),
        assumptions=[
            f"{rps} requests/s at peak, {out_tokens} output tokens each.",
            f"{prose(per_gpu)} output tokens/s per {name} at the latency target (load test), {tp} GPUs per replica; "
            f"${price} per GPU-hour.",
            f"Peak utilisation cap {fmt(util * 100)}%; 730 hours per month.",
        ],
        calculations=calculations,
        conclusion=[verdict],
        family="serving-fleet",
        params={
            "device": key,
            "model": model.key,
            "rps": rps,
            "out_tokens": out_tokens,
            "per_gpu": per_gpu,
            "variant": variant,
        },
        minutes=6,
    )


# --- feature-energy ------------------------------------------------------------------------------

ENERGY_CELLS = frozenset({("mobile", "L3"), ("edge", "L3")})
PHONE_FEATURES = (
    ("live captions", "second of audio", 3600),
    ("photo enhancement", "photo", 200),
    ("on-device reply suggestions", "suggestion", 300),
    ("a background photo-tagging pass", "photo", 1500),
    ("voice typing", "second of speech", 1200),
    ("on-device summaries of notifications", "summary", 150),
    ("real-time translation", "second of speech", 1800),
)
EDGE_SITES = (
    ("a solar-powered traffic camera", "solar panel and battery"),
    ("a delivery robot", "traction battery"),
    ("a remote pipeline inspection station", "solar panel and battery"),
    ("a farm drone dock", "battery bank"),
    ("a bus with onboard passenger counting", "vehicle auxiliary battery"),
)
JETSON_MODES = {
    "jetson-orin-nano": (7, 15, 25),
    "jetson-orin-nx": (10, 15, 25, 40),
    "jetson-agx-orin": (15, 30, 50, 60),
}


def feature_energy(rng: random.Random, tables: Tables, track: str, level: str) -> Draft | None:
    if (track, level) not in ENERGY_CELLS:
        return None
    if track == "mobile":
        key = pick(rng, ("apple-a17-pro", "snapdragon-8-gen-3"))
        feature, unit, per_day = pick(rng, PHONE_FEATURES)
        watts = Fraction(pick(rng, ("1.5", "2", "2.5", "3", "4", "5")))
        ms = pick(rng, (30, 50, 80, 120, 200, 400))
        battery_wh = pick(rng, (12, 13, 15, 17))
        device = tables.hardware.devices[key].aliases[0]
        scenario = pick(
            rng,
            (
                f"A phone team ships {feature} on the {device}'s NPU.",
                f"A product manager wants {feature} always on, running on the {device}.",
                f"A battery-drain bug report blames {feature}, which runs on the {device}.",
            ),
        )
        scenario += pick(
            rng,
            (
                f" Profiling shows each {unit} costs {ms} ms of NPU work at about {fmt(watts)} W of extra SoC power.",
                f" A power trace puts one {unit} at {ms} ms and roughly {fmt(watts)} W above idle.",
                f" Each {unit} keeps the accelerator busy for {ms} ms, drawing about {fmt(watts)} W more than idle.",
            ),
        )
        scenario += pick(
            rng,
            (
                f" A heavy user triggers it {prose(per_day)} times a day, and the battery holds {battery_wh} Wh.",
                f" Telemetry says heavy users reach {prose(per_day)} uses daily; the battery is {battery_wh} Wh.",
                f" Assume {prose(per_day)} uses per day for a power user and a {battery_wh} Wh battery.",
            ),
        )
        energy_unit = "J"
        e_text, e = shown(watts * ms / 1000)
        day_text, day = shown(e * per_day)
        share_text, share = shown(day / (battery_wh * 3600) * 100)
        calculations = [
            f"{fmt(watts)} W * {ms} ms = {e_text} J per {unit}",
            f"{e_text} J * {prose(per_day)} = {prose(day)} J per day",
            f"{prose(day)} J / {battery_wh} Wh = {share_text}% of the battery per day",
        ]
        verdict = (
            f"About {e_text} J per {unit}, {prose(day)} J a day: {share_text}% of a {battery_wh} Wh battery, "
            + (
                "too small for users to notice; if drain is reported, look at what runs around the model "
                "(wake-ups, camera or radio kept on)."
                if share < 2
                else "noticeable on a heavy day and worth trimming."
                if share < 8
                else "a drain users will see, so it must shrink before launch."
            )
        )
        variant = pick(rng, ("share", "halve", "budget"))
        if variant == "budget":
            # A concrete budget to specify against: 1% of the battery a day for a heavy user.
            budget = battery_wh * 36
            ratio_text, _ = shown(Fraction(budget) / day)
            calculations.append(f"1% * {battery_wh} Wh = {prose(budget)} J per day of budget")
            calculations.append(f"{prose(budget)} J / {prose(day)} J = {ratio_text}x the feature's use today")
            verdict += f" A budget of 1% of the battery a day for a heavy user is {prose(budget)} J, " + (
                "exactly what the feature uses now, with no headroom."
                if budget == day
                else f"{ratio_text} times what the feature uses now, so the design "
                + ("already meets it." if budget > day else "must shrink to fit it.")
            )
        topic, area = "energy-per-operation", "power"
        params: dict[str, str | int] = {"device": key, "watts": fmt(watts), "ms": ms}
    else:
        key = pick(rng, tuple(JETSON_MODES))
        mode = pick(rng, JETSON_MODES[key])
        site, supply = pick(rng, EDGE_SITES)
        hours = pick(rng, (8, 12, 16, 24))
        battery_wh = pick(rng, (500, 1000, 1500, 2400))
        device = tables.hardware.devices[key].aliases[0]
        scenario = pick(
            rng,
            (
                f"{site[0].upper()}{site[1:]} runs its vision models on a {device} in the {mode} W power mode.",
                f"An integrator proposes a {device} at its {mode} W mode for {site}.",
                f"The power budget of {site}, built on a {device} ({mode} W mode), is under review.",
            ),
        )
        scenario += pick(
            rng,
            (
                f" The module runs {hours} hours a day from a {supply} with {prose(battery_wh)} Wh usable.",
                f" It operates {hours} h daily; the {supply} stores {prose(battery_wh)} Wh that can be used.",
                f" Duty is {hours} hours per day, powered from a {supply} ({prose(battery_wh)} Wh usable).",
            ),
        )
        variant = pick(rng, ("share", "halve"))
        scenario += pick(
            rng,
            (
                " Cameras, radio and an enclosure heater add about 40% on top of the module.",
                " The rest of the unit (cameras, modem, heater) draws another 40% of the module's power.",
                " Peripherals add roughly 40% to the module's draw.",
            ),
        )
        energy_unit = "Wh"
        e_text, e = shown(Fraction(mode) * Fraction(7, 5))
        day_text, day = shown(e * hours)
        share_text, share = shown(day / battery_wh * 100)
        calculations = [
            f"{mode} W * 1.4 = {e_text} W for the whole unit",
            f"{e_text} W * {hours} h = {prose(day)} Wh per day",
            f"{prose(day)} Wh / {prose(battery_wh)} Wh = {share_text}% of the usable storage per day",
        ]
        verdict = (
            f"The unit needs about {prose(day)} Wh a day, {share_text}% of the {prose(battery_wh)} Wh available: "
            + (
                "more than storage holds, so it cannot run the day without recharging during it."
                if share > 100
                else "little margin for a cloudy day or a cold battery."
                if share > 60
                else "a comfortable margin."
            )
        )
        topic, area = "power-budgeting", "power"
        params = {
            "device": key,
            "mode_w": mode,
            "hours": hours,
            "battery_wh": battery_wh,
        }
    if variant == "share":
        question = pick(
            rng,
            (
                "How much energy does the feature use per day, and what share of the battery is that?",
                f"Estimate the daily energy in {energy_unit} and the share of stored energy it takes.",
            ),
        )
    elif variant == "halve":
        question = pick(
            rng,
            (
                "Is the drain acceptable, and which single change would halve it?",
                "Users complain about battery life. Is this the culprit, and what would you change first?",
            ),
        )
    else:
        question = "Does the feature fit a budget of 1% of the battery a day for a heavy user?"
    zone_, bloom = zone(rng, level, ("analyze",))
    answer = (
        f"{verdict} Energy is power times time per use, times uses; the share of stored energy is what users feel. "
        f"The levers, in order: run less often (batch or trigger on events), run shorter (a smaller or quantised "
        f"model, fewer frames), and run at a better operating point (the NPU or a lower power mode finishes the "
        f"same work for less energy than a hot GPU or CPU)."
    )
    if variant == "halve":
        answer += (
            " Energy is a product, so any one change that halves a factor halves the drain: half as many runs, "
            "half the time per run, or half the power while running; the first is usually the cheapest."
        )
    if variant == "budget":
        answer += (
            " Set the budget as a share of daily energy, gate releases on a measured regression test of energy per "
            "use, and watch field telemetry by device model, since thermal throttling raises energy per use on hot days."
        )
    return Draft(
        track=track,
        competency_area=area,
        topic=topic,
        level=level,
        zone=zone_,
        bloom_level=bloom,
        phase="inference",
        title=pick(
            rng,
            (
                "Daily Energy Budget of an AI Feature on the {d}",
                "How Much Battery Does a Model on the {d} Use per Day",
                "Energy per Use and per Day on the {d}",
                "Power Budget Review for a {d} Deployment",
            ),
        ).format(d=device),
        scenario=scenario,
        question=question,
        solution=answer,
        mistake=(
            "Quoting the accelerator's peak power or TOPS per watt instead of energy per use times uses per day.",
            "Watts and TOPS are on the spec sheet; energy per use has to be measured.",
            "The feature ships with a drain users notice, or a good feature is cut on a wrong estimate.",
        ),
        assumptions=[f"{device}: measured power and duty as given in the scenario."],
        calculations=calculations,
        conclusion=[verdict],
        family="feature-energy",
        params={**params, "variant": variant},
        minutes=6,
    )
