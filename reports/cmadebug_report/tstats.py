"""Small-sample intervals for the TLB A/B (standard library only).

The unit of replication is the boot: runs within one boot share its
physical placement, cache colouring and frequency, so they are not
independent evidence.  Each boot is reduced to one value per metric (the
median of its runs, robust to the odd interrupted run), and the intervals
are Student-t intervals over those per-boot values, on a log scale, so a
ratio comes out (exp(d) - 1 is the relative difference):

- across boots (A and B are different boots): Welch's interval for the
  difference of the mean log per-boot values;
- within boots (both ranges measured in every boot, interleaved): the
  per-boot paired differences; when the split range is swapped between
  boots (a crossover), the two arms' means are averaged, so a placement
  effect of either physical range cancels, and the spread is the pooled
  within-arm spread (df = boots - 2).

reports/README.md shows by simulation that these keep their coverage at the
minimum sizes below; tests/python/test_tstats.py is that simulation.
"""
import math
import statistics

CONFIDENCE = 0.95
POWER = 0.80
# Fewer boots than this and the analysis prints "insufficient" and draws no
# interval: at n = 2 per variant Welch's interval has df close to 1 and a
# t quantile of 12.7, which says nothing a board user can act on.
MIN_BOOTS_ACROSS = 3          # per variant
MIN_BOOTS_PER_ARM = 2         # within-boot crossover: per arm (so 4 in all)
MIN_BOOTS_PAIRED = 3          # within-boot without a crossover
TRIM = 0.2                    # boot_value: trimmed from each end


# ---- Student's t ----------------------------------------------------------

def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 3e-16
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            break
    return h


def _betai(a, b, x):
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_sf2(t, df):
    """Two-sided p-value P(|T| >= |t|) for Student's t with DF degrees."""
    if math.isinf(t):
        return 0.0
    return _betai(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(p, df):
    """The p quantile of Student's t (p > 0.5), by bisection on t_sf2."""
    if not 0.5 < p < 1.0:
        raise ValueError("p must be in (0.5, 1)")
    target = 2.0 * (1.0 - p)
    lo, hi = 0.0, 1.0
    while t_sf2(hi, df) > target:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_sf2(mid, df) > target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2.0


# ---- intervals --------------------------------------------------------------

class Estimate:
    """B against A: an estimate with its t interval.

    On the log scale (every per-boot value > 0) D is a log ratio and the
    relative difference is exp(D) - 1; on the linear scale (some value is
    0: a real zero count) D is a difference of means and the relative
    difference is D / BASE, BASE being A's mean, taken as known.  SE is
    None when there are too few boots (SHORT says how many and how many
    are needed): the estimate stands, no interval is drawn.  SE 0: every
    value equal, a zero-width interval.
    """

    def __init__(self, d, se, df, n, design, scale="log", base=None, short=None):
        self.d, self.se, self.df, self.n, self.design = d, se, df, n, design
        self.scale, self.base, self.short = scale, base, short

    def halfwidth(self, confidence=CONFIDENCE):
        if self.se is None:
            return None
        if self.se == 0:
            return 0.0
        return t_quantile(0.5 + confidence / 2, self.df) * self.se

    def interval(self, confidence=CONFIDENCE):
        h = self.halfwidth(confidence)
        return None if h is None else (self.d - h, self.d + h)

    def p_value(self):
        if self.se is None:
            return None
        if self.se == 0:
            return 0.0 if self.d != 0 else 1.0
        return t_sf2(self.d / self.se, self.df)

    def _rel(self, x):
        if self.scale == "log":
            return math.expm1(x)
        return x / self.base

    def relative(self, confidence=CONFIDENCE):
        """(estimate, (lo, hi) or None) as relative differences."""
        iv = self.interval(confidence)
        return self._rel(self.d), None if iv is None else (self._rel(iv[0]), self._rel(iv[1]))


def boot_value(runs):
    """One boot's value: the 20 % trimmed mean of its runs (the odd run an
    interrupt or a migration slowed is dropped; unlike the median it keeps
    most of the mean's efficiency, so fewer runs resolve the same effect)."""
    vals = sorted(runs)
    k = int(len(vals) * TRIM)
    return statistics.fmean(vals[k:len(vals) - k])


def _scale(values):
    """log when every value is > 0, else linear (a real zero count)."""
    return "log" if all(v > 0 for v in values) else "linear"


def _plural(n, what):
    return f"{n} {what}{'' if n == 1 else 's'}"


def welch(a_boots, b_boots, min_boots=MIN_BOOTS_ACROSS):
    """B against A when every boot measured one variant: a_boots, b_boots
    are per-boot values.  Linear scale: None when A's mean is 0."""
    na, nb = len(a_boots), len(b_boots)
    scale = _scale(a_boots + b_boots)
    f = math.log if scale == "log" else float
    ya, yb = [f(v) for v in a_boots], [f(v) for v in b_boots]
    base = statistics.fmean(a_boots)
    if scale == "linear" and base == 0:
        return None
    d = statistics.fmean(yb) - statistics.fmean(ya)
    if min(na, nb) < min_boots:
        return Estimate(d, None, None, na + nb, "across", scale, base,
                        f"{_plural(min(na, nb), 'boot')} of a variant, need {min_boots} of each")
    va, vb = statistics.variance(ya) / na, statistics.variance(yb) / nb
    se = math.sqrt(va + vb)
    if se == 0:
        return Estimate(d, 0.0, na + nb - 2, na + nb, "across", scale, base)
    df = (va + vb) ** 2 / (va * va / (na - 1) + vb * vb / (nb - 1))
    return Estimate(d, se, df, na + nb, "across", scale, base)


def paired(pairs, arms=None):
    """B against A when every boot measured both (the within-boot design).

    pairs: [(a, b)] per boot; arms: a label per boot saying which physical
    range was split in it (None: one arm).  With two arms (a crossover)
    the estimate is the mean of the arm means, so a placement effect of
    either range cancels, and the spread is the pooled within-arm spread;
    with one arm it is the mean paired difference, a placement effect
    included (the caller says so).  Linear scale: None when A's mean is 0.
    """
    scale = _scale([x for p in pairs for x in p])
    f = math.log if scale == "log" else float
    base = statistics.fmean(a for a, _ in pairs)
    if scale == "linear" and base == 0:
        return None
    diffs = [f(b) - f(a) for a, b in pairs]
    labels = arms if arms is not None else [None] * len(diffs)
    by_arm = {}
    for lab, x in zip(labels, diffs):
        by_arm.setdefault(lab, []).append(x)
    if len(by_arm) > 2:
        raise ValueError("a crossover has two arms")
    n = len(diffs)
    if len(by_arm) == 1:
        d = statistics.fmean(diffs)
        if n < MIN_BOOTS_PAIRED:
            return Estimate(d, None, None, n, "within", scale, base,
                            f"{_plural(n, 'boot')}, need {MIN_BOOTS_PAIRED}")
        return Estimate(d, statistics.stdev(diffs) / math.sqrt(n), n - 1, n, "within", scale, base)
    groups = list(by_arm.values())
    means = [statistics.fmean(g) for g in groups]
    d = sum(means) / 2.0
    small = min(len(g) for g in groups)
    if small < MIN_BOOTS_PER_ARM:
        return Estimate(d, None, None, n, "crossover", scale, base,
                        f"{_plural(small, 'boot')} in an arm of the crossover, "
                        f"need {MIN_BOOTS_PER_ARM} per arm")
    df = n - 2
    sp2 = sum(sum((x - m) ** 2 for x in g) for g, m in zip(groups, means)) / df
    se = math.sqrt(sp2 * sum(1.0 / len(g) for g in groups)) / 2.0
    return Estimate(d, se, df, n, "crossover", scale, base)


def spread(samples):
    """The pooled sd of SAMPLES (lists), or None: boots_to_resolve's SD.
    Across: each variant's per-boot log values; within: each arm's per-boot
    paired log differences."""
    groups = [g for g in samples if len(g) >= 2]
    if not groups:
        return None
    df = sum(len(g) - 1 for g in groups)
    ss = sum(sum((x - statistics.fmean(g)) ** 2 for x in g) for g in groups)
    return math.sqrt(ss / df)


def holm(p_values):
    """Holm's step-down adjustment: adjusted p-values in the input order."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    m = len(p_values)
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def boots_to_resolve(sd, effect, design, confidence=CONFIDENCE, power=POWER, limit=10000):
    """Boots needed so that a relative EFFECT has POWER of an interval
    excluding zero, given SD, the spread of one boot's value (across: of a
    variant's per-boot log values, per variant; within: of the per-boot
    paired log differences).  Returns boots per variant (across) or in all
    (within), or None if more than LIMIT."""
    delta = abs(math.log1p(effect))
    start = MIN_BOOTS_ACROSS if design == "across" else 2 * MIN_BOOTS_PER_ARM
    if sd == 0:
        return start
    # The normal approximation is a lower bound (t quantiles exceed z ones):
    # start there, so the search is a few steps.
    z = statistics.NormalDist()
    n_normal = ((z.inv_cdf(0.5 + confidence / 2) + z.inv_cdf(power)) * sd / delta) ** 2
    if design == "across":
        n_normal *= 2
    if n_normal > limit:
        return None
    for n in range(max(start, math.floor(n_normal)), limit + 1):
        if design == "across":
            df, se = 2 * n - 2, sd * math.sqrt(2.0 / n)
        else:
            df, se = n - 2, sd / math.sqrt(n)
        need = (t_quantile(0.5 + confidence / 2, df) + t_quantile(power, df)) * se
        if need <= delta:
            return n
    return None
