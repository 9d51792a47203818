"""cmadebug_report.tstats: the intervals abstats draws keep their promise.

Seeded simulations (cmadebug_report.simulate: its docstring is the model),
each experiment through the functions abstats calls; the figures are in
reports/README.md.  Boot noise 0.5 % and 1 %, run noise 0.5 %, 5 %
outliers, at the minimum number of boots the tool draws an interval for.
"""
import math
import random
import statistics

import pytest

from cmadebug_report import simulate, tstats

EXPERIMENTS = 600


def test_t_quantiles_and_p_values():
    """Against the tables: t(0.975) for df 1, 2, 4, 10, 30; p of t = 2.228 at df 10."""
    for df, q in ((1, 12.7062), (2, 4.3027), (4, 2.7764), (10, 2.2281), (30, 2.0423)):
        assert tstats.t_quantile(0.975, df) == pytest.approx(q, abs=1e-4)
    assert tstats.t_quantile(0.8, 5) == pytest.approx(0.9195, abs=1e-4)
    assert tstats.t_sf2(2.2281, 10) == pytest.approx(0.05, abs=1e-4)
    q = tstats.t_quantile(0.975, 2.5)  # Welch's fractional df: between df 2 and 3, and consistent
    assert 3.1824 < q < 4.3027 and tstats.t_sf2(q, 2.5) == pytest.approx(0.05, abs=1e-9)


def test_holm():
    assert tstats.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert tstats.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


@pytest.mark.parametrize("boot_sd", [0.005, 0.01])
@pytest.mark.parametrize("design, boots", [("across", tstats.MIN_BOOTS_ACROSS),
                                           ("within", 2 * tstats.MIN_BOOTS_PER_ARM)])
def test_coverage_and_false_positives_at_the_minimum(design, boots, boot_sd):
    fn = simulate.across if design == "across" else simulate.within
    cov, fp = simulate.study(lambda r: fn(r, boots, boot_sd, 0.0), EXPERIMENTS, 11, 0.0)
    assert cov >= 0.93, f"coverage {cov:.3f}"
    assert fp <= 0.06, f"'significant' at zero effect in {fp:.3f}"
    cov, _ = simulate.study(lambda r: fn(r, boots, boot_sd, 0.02), EXPERIMENTS, 12, 0.02)
    assert cov >= 0.93, f"coverage of a +2 % effect {cov:.3f}"


def test_below_the_minimum_no_interval():
    rng = random.Random(1)
    est = simulate.across(rng, tstats.MIN_BOOTS_ACROSS - 1, 0.005, 0.0)
    assert est.interval() is None and est.short.startswith("2 boots of a variant")
    est = simulate.within(rng, 3, 0.005, 0.0)
    assert est.interval() is None and "in an arm of the crossover" in est.short


@pytest.mark.parametrize("boot_sd", [0.005, 0.01])
def test_within_boot_resolves_half_a_percent_in_four_boots(boot_sd):
    _, resolved = simulate.study(lambda r: simulate.within(r, 4, boot_sd, 0.005), EXPERIMENTS, 13, 0.005)
    assert resolved >= 0.80, f"resolved in {resolved:.3f}"


def test_crossover_cancels_placement():
    """A placement effect of one physical range biases the single-arm
    estimate, not the crossover's: mean estimate over experiments."""
    rng = random.Random(5)
    cross = [simulate.within(rng, 4, 0.01, 0.0).d for _ in range(300)]
    assert abs(statistics.fmean(cross)) < 0.0005


def test_holm_keeps_five_sizes_honest():
    rng = random.Random(17)
    fam = [simulate.family(rng, tstats.MIN_BOOTS_ACROSS, 0.005) for _ in range(EXPERIMENTS)]
    unadjusted = sum(u for u, _ in fam) / len(fam)
    adjusted = sum(h for _, h in fam) / len(fam)
    assert adjusted <= 0.06 and unadjusted > adjusted, (unadjusted, adjusted)


@pytest.mark.parametrize("boot_sd", [0.005, 0.01])
def test_sequential_mode_keeps_coverage(boot_sd):
    cov, _ = simulate.study(lambda r: simulate.sequential(r, boot_sd, 0.005, 0.005), 300, 19, 0.005)
    assert cov >= 0.93, f"coverage {cov:.3f}"


def test_boots_to_resolve_is_what_it_takes():
    """The advice from the observed spread: at the boots it names, the
    effect is resolved in about POWER of experiments (within design)."""
    rng = random.Random(23)
    # the spread of one boot's paired difference in the model, measured
    sds = [tstats.spread([[math.log(b) - math.log(a) for a, b in
                           (simulate._within_boot(rng, 0.01, 0.0, simulate.WITHIN_RUNS, 0, 0) for _ in range(8))]])
           for _ in range(50)]
    sd = statistics.fmean(sds)
    n = tstats.boots_to_resolve(sd, 0.0025, "within")
    assert n is not None and n >= 4
    n += n % 2  # both arms equal
    _, resolved = simulate.study(lambda r: simulate.within(r, n, 0.01, 0.0025), 300, 29, 0.0025)
    assert 0.7 <= resolved, (n, resolved)
    assert tstats.boots_to_resolve(sd, 0.0025, "within", limit=3) is None
