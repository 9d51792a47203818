"""Simulated TLB A/B experiments: do abstats' intervals keep their promise?

    python3 -m cmadebug_report.simulate [--experiments N] [--seed S]

prints the table in reports/README.md ("How far the intervals can be
trusted"); tests/python/test_tstats.py asserts on the same simulation.

The model, per experiment (all noise multiplicative, on a log scale):
- boot noise: each boot shifts all its runs by N(0, boot_sd) (placement,
  cache colouring, frequency: what one boot has and another has not);
- run noise N(0, 0.5 %); 5 % of runs are outliers, slower by 5-50 %
  (an interrupt or a migration during the walk);
- across-boot design: each boot measures one variant, RUNS runs;
- within-boot design: each boot measures both ranges interleaved (ABBA
  blocks), RUNS runs of each; the boot noise is common to both ranges, a
  slow drift over the boot (N(0, boot_sd / 2) end to end) is not; each
  physical range has its own placement effect N(0, boot_sd), fixed for the
  experiment, and the split range is swapped between boots (crossover).
Every experiment goes through the functions abstats uses: tstats.boot_value
per boot, then tstats.welch or tstats.paired.
"""
import argparse
import math
import random
import sys

from . import tstats

RUN_SD = 0.005
OUTLIER_P = 0.05
ACROSS_RUNS = 5          # tlb-ab.sh run --runs default
WITHIN_RUNS = 32         # runs of each range per boot (16 ABBA blocks)


def _runs(rng, n, level):
    out = []
    for _ in range(n):
        x = level + rng.gauss(0, RUN_SD)
        if rng.random() < OUTLIER_P:
            x += math.log1p(rng.uniform(0.05, 0.5))
        out.append(math.exp(x))
    return out


def across(rng, boots, boot_sd, effect, runs=ACROSS_RUNS):
    """One across-boot experiment with BOOTS boots per variant."""
    a = [tstats.boot_value(_runs(rng, runs, rng.gauss(0, boot_sd))) for _ in range(boots)]
    b = [tstats.boot_value(_runs(rng, runs, math.log1p(effect) + rng.gauss(0, boot_sd)))
         for _ in range(boots)]
    return tstats.welch(a, b)


def _within_boot(rng, boot_sd, effect, runs, placement_split, placement_block):
    common = rng.gauss(0, boot_sd)
    drift = rng.gauss(0, boot_sd / 2)
    a_level = common + placement_block
    b_level = common + placement_split + math.log1p(effect)
    order = "ABBA" * (runs // 2)
    a, b = [], []
    for i, which in enumerate(order):
        d = drift * i / len(order)
        if which == "A":
            a += _runs(rng, 1, a_level + d)
        else:
            b += _runs(rng, 1, b_level + d)
    return tstats.boot_value(a), tstats.boot_value(b)


def within(rng, boots, boot_sd, effect, runs=WITHIN_RUNS, crossover=True):
    """One within-boot experiment with BOOTS boots in all."""
    place = [rng.gauss(0, boot_sd), rng.gauss(0, boot_sd)]
    pairs, arms = [], []
    for i in range(boots):
        arm = i % 2 if crossover else 0
        pairs.append(_within_boot(rng, boot_sd, effect, runs, place[arm], place[1 - arm]))
        arms.append(arm)
    return tstats.paired(pairs, arms if crossover else None)


def sequential(rng, boot_sd, effect, halfwidth, limit=20):
    """--until HALFWIDTH across boots: a boot of each variant at a time from
    the minimum, until the interval is that narrow or LIMIT boots."""
    a, b = [], []
    while True:
        for vals, eff in ((a, 0.0), (b, effect)):
            vals.append(tstats.boot_value(_runs(rng, ACROSS_RUNS, math.log1p(eff) + rng.gauss(0, boot_sd))))
        if len(a) < tstats.MIN_BOOTS_ACROSS:
            continue
        est = tstats.welch(a, b)
        rel, (lo, hi) = est.relative()
        if max(rel - lo, hi - rel) <= halfwidth or len(a) >= limit:
            return est


def family(rng, boots, boot_sd, sizes=5):
    """SIZES working-set sizes at zero effect: (any significant unadjusted,
    any significant after Holm)."""
    ps = [across(rng, boots, boot_sd, 0.0).p_value() for _ in range(sizes)]
    alpha = 1 - tstats.CONFIDENCE
    return any(p < alpha for p in ps), any(p < alpha for p in tstats.holm(ps))


def study(make, experiments, seed, effect):
    """(coverage of the true effect, share whose interval excludes 0).  The
    effect shifts every B value alike, so coverage does not depend on it."""
    rng = random.Random(seed)
    truth = math.log1p(effect)
    covered = excluded = 0
    for _ in range(experiments):
        lo, hi = make(rng).interval()
        covered += lo <= truth <= hi
        excluded += lo > 0 or hi < 0
    return covered / experiments, excluded / experiments


def table(experiments, seed):
    rows = []
    for boot_sd in (0.005, 0.01):
        for design, boots in (("across", tstats.MIN_BOOTS_ACROSS), ("across", 5), ("across", 10),
                              ("within", 2 * tstats.MIN_BOOTS_PER_ARM), ("within", 6)):
            fn = across if design == "across" else within
            cov, fp = study(lambda r: fn(r, boots, boot_sd, 0.0), experiments, seed, 0.0)
            _, power = study(lambda r: fn(r, boots, boot_sd, 0.005), experiments, seed + 1, 0.005)
            rows.append((boot_sd, design, boots, cov, fp, power))
    return rows


def main(argv):
    p = argparse.ArgumentParser(prog="python3 -m cmadebug_report.simulate", description=__doc__.split("\n")[0])
    p.add_argument("--experiments", type=int, default=400)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    print("| boot noise | design | boots | coverage | 'significant' at zero effect | resolves +0.5 % |")
    print("|---|---|---|---|---|---|")
    for boot_sd, design, boots, cov, fp, power in table(args.experiments, args.seed):
        per = "per variant" if design == "across" else "in all"
        print(f"| {100 * boot_sd:g} % | {design} | {boots} {per} | {cov:.3f} | {fp:.3f} | {power:.3f} |")
    rng = random.Random(args.seed)
    fam = [family(rng, tstats.MIN_BOOTS_ACROSS, 0.005) for _ in range(args.experiments)]
    print(f"\n5 sizes at zero effect, {tstats.MIN_BOOTS_ACROSS} boots per variant, 0.5 % boot noise: "
          f"at least one 'significant' size in {sum(u for u, _ in fam) / len(fam):.3f} of experiments "
          f"unadjusted, {sum(h for _, h in fam) / len(fam):.3f} after Holm")
    for boot_sd in (0.005, 0.01):
        cov, _ = study(lambda r: sequential(r, boot_sd, 0.005, 0.005), args.experiments, args.seed, 0.005)
        print(f"sequential (--until 0.5%, at most 20 boots per variant), {100 * boot_sd:g} % boot noise: "
              f"coverage {cov:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
