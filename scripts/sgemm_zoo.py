"""The shape zoo of scripts/bench --zoo: random GEMM shapes plus named families (standard library only).

Random shapes: M, N and K each log-uniform over the integers 1 … 2^16 (P(d) proportional to
ln((d + 1) / d)), a draw kept only when its work 2·M·N·K lies in [min_flop, max_flop] and its
operands A + B + C (float32) fit in max_bytes; a draw equal to a shape already in the zoo is drawn
again, so the zoo holds exactly `count` random shapes.

Families (named shapes of a kind that matters in practice; the FLOP window does not apply to them, the
memory cap does):
  small-batch  M in {1, 2, 4, 8, 16, 32, 64} x N in {4096, 11008, 14336} x K in the same (63 shapes)
  low-rank     K in {1, 2, 4, …, 64}, M = N in {4096, 16384} (14)
  deep-k       M, N log-uniform in 16 … 512, K log-uniform in 32768 … 262144 (6 drawn)
  gemv         matrix-vector both ways: N = 1 and M = 1, the other two 8192 (2) or log-uniform in
               1000 … 9999 (3 drawn each way)
  squares      128³, 256³, …, 8192³ (7)
  odd          1023³, 1025³, 4095³, 4097³ and 4 triples drawn from primes and 2^k ± 1 near 1000-8000
A family larger than family_max is cut to family_max shapes, drawn from the seed (small-batch keeps
every M: it takes the shapes M by M in turn). Shapes in two families keep the first family's class.

Everything drawn comes from random.Random seeded with a string made of the seed and the family's name:
the same seed gives the same zoo on every Python 3 (only Random.random() is used, whose sequence for a
given seed is fixed), and one family's draws do not depend on which other families are selected.
"""

from __future__ import annotations

import math
import random
import secrets

FAMILIES = ("small-batch", "low-rank", "deep-k", "gemv", "squares", "odd")
RANDOM = "random"  # the class of the random draws

DIM_MAX = 2**16
DEFAULT_MIN_FLOP = 2e8
DEFAULT_MAX_FLOP = 4e11
DEFAULT_MAX_GIB = 6.0
DEFAULT_FAMILY_MAX = 16
DEFAULT_BATCH = 16

SMALL_BATCH_M = (1, 2, 4, 8, 16, 32, 64)
SMALL_BATCH_NK = (4096, 11008, 14336)
LOW_RANK_K = (1, 2, 4, 8, 16, 32, 64)
LOW_RANK_MN = (4096, 16384)
DEEP_K_COUNT = 6
GEMV_DRAWN = 3  # per direction, besides the 4096 pair
SQUARES = (128, 256, 512, 1024, 2048, 4096, 8192)
ODD_CUBES = (1023, 1025, 4095, 4097)
ODD_POOL = (1009, 1021, 1023, 1025, 2039, 2047, 2049, 3001, 4093, 4095, 4097, 5003, 6007, 7919, 8191)
ODD_DRAWN = 4


class ZooError(Exception):
    """Caps or options that leave no room for the requested draws."""


def fresh_seed() -> int:
    """A new seed from the operating system's randomness: 32 bits, printed and recorded by bench."""
    return secrets.randbits(32)


def flop(size) -> int:
    m, n, k = size
    return 2 * m * n * k


def operand_bytes(size) -> int:
    """Bytes of A (M×K), B (K×N) and C (M×N) in float32."""
    m, n, k = size
    return 4 * (m * k + k * n + m * n)


def parse_families(text: str | None) -> list[str]:
    """'all', 'none' or a comma list of FAMILIES -> the selected names in FAMILIES order."""
    if text is None:
        return list(FAMILIES)
    names = [t.strip() for t in text.split(",") if t.strip()]
    if names == ["all"]:
        return list(FAMILIES)
    if names in ([], ["none"]):
        return []
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        raise ZooError(f"unknown famil{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown)}; "
                       f"known: {', '.join(FAMILIES)} (or all, none)")
    return [f for f in FAMILIES if f in names]


def _rng(seed: int, what: str) -> random.Random:
    return random.Random(f"sgemm-zoo/{seed}/{what}")


def _below(rng: random.Random, n: int) -> int:
    """An integer in [0, n) from rng.random() alone."""
    return min(int(rng.random() * n), n - 1)


def _shuffled(rng: random.Random, items) -> list:
    items = list(items)
    for i in range(len(items) - 1, 0, -1):  # Fisher-Yates
        j = _below(rng, i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def log_uniform_int(rng: random.Random, lo: int, hi: int) -> int:
    """An integer in [lo, hi], log-uniform: floor(exp(U(ln lo, ln(hi + 1))))."""
    a, b = math.log(lo), math.log(hi + 1)
    return max(lo, min(hi, int(math.exp(a + rng.random() * (b - a)))))


def _drawn(rng, count, make):
    """count distinct shapes from make(rng) (a bounded number of tries)."""
    out = []
    for _ in range(100 * count):
        if len(out) == count:
            break
        s = make(rng)
        if s not in out:
            out.append(s)
    return out


def family_shapes(name: str, seed: int) -> list[tuple[int, int, int]]:
    """Every candidate shape of one family, before the family_max cut and the memory cap."""
    rng = _rng(seed, name)
    if name == "small-batch":
        return [(m, n, k) for m in SMALL_BATCH_M for n in SMALL_BATCH_NK for k in SMALL_BATCH_NK]
    if name == "low-rank":
        return [(mn, mn, k) for mn in LOW_RANK_MN for k in LOW_RANK_K]
    if name == "deep-k":
        return _drawn(rng, DEEP_K_COUNT, lambda r: (log_uniform_int(r, 16, 512), log_uniform_int(r, 16, 512),
                                                    log_uniform_int(r, 32768, 262144)))
    if name == "gemv":
        thousands = lambda r: log_uniform_int(r, 1000, 9999)  # noqa: E731
        n1 = _drawn(rng, GEMV_DRAWN, lambda r: (thousands(r), 1, thousands(r)))
        m1 = _drawn(rng, GEMV_DRAWN, lambda r: (1, thousands(r), thousands(r)))
        return [(8192, 1, 8192)] + n1 + [(1, 8192, 8192)] + m1
    if name == "squares":
        return [(s, s, s) for s in SQUARES]
    if name == "odd":
        pick = lambda r: ODD_POOL[_below(r, len(ODD_POOL))]  # noqa: E731
        cubes = [(s, s, s) for s in ODD_CUBES]
        return cubes + [s for s in _drawn(rng, ODD_DRAWN + len(cubes), lambda r: (pick(r), pick(r), pick(r)))
                        if s not in cubes][:ODD_DRAWN]
    raise ZooError(f"unknown family {name!r}")


def _cut(name: str, shapes: list, family_max: int, seed: int) -> list:
    """At most family_max of shapes, drawn from the seed, in their original order."""
    if not family_max or len(shapes) <= family_max:
        return shapes
    rng = _rng(seed, name + "/cut")
    if name == "small-batch":  # every M before any M twice
        groups = [_shuffled(rng, [s for s in shapes if s[0] == m]) for m in SMALL_BATCH_M]
        order = [g[i] for i in range(max(len(g) for g in groups)) for g in groups if i < len(g)]
    else:
        order = _shuffled(rng, shapes)
    keep = set(order[:family_max])
    return [s for s in shapes if s in keep]


def draw_zoo(count: int, seed: int, families=FAMILIES, min_flop: float = DEFAULT_MIN_FLOP,
             max_flop: float = DEFAULT_MAX_FLOP, max_bytes: float = DEFAULT_MAX_GIB * 2**30,
             family_max: int = DEFAULT_FAMILY_MAX):
    """The zoo: (shapes, record).

    shapes: [(M, N, K, class)], the selected families' shapes first (in FAMILIES order), then the
    `count` random ones, no shape twice. record: what bench writes as sweep.zoo (less the shapes).
    """
    if count < 0:
        raise ZooError(f"--zoo {count}: the number of random shapes must be 0 or more")
    if count and not (0 < min_flop <= max_flop):
        raise ZooError(f"FLOP window [{min_flop:g}, {max_flop:g}] is empty")
    if max_bytes <= 0:
        raise ZooError("the memory cap must be positive")
    shapes, seen, fam_record = [], set(), {}
    for name in FAMILIES:
        if name not in families:
            continue
        candidates = family_shapes(name, seed)
        fitting = [s for s in candidates if operand_bytes(s) <= max_bytes]
        kept = _cut(name, fitting, family_max, seed)
        added = [s for s in kept if s not in seen]
        seen.update(added)
        shapes += [s + (name,) for s in added]
        fam_record[name] = {"count": len(added), "candidates": len(candidates),
                            "over_memory_cap": len(candidates) - len(fitting),
                            "cut_by_family_max": len(fitting) - len(kept), "duplicates": len(kept) - len(added)}

    rng = _rng(seed, RANDOM)
    stats = {"draws": 0, "outside_flop_window": 0, "over_memory_cap": 0, "duplicates": 0}
    limit = 10000 + 1000 * count
    drawn = 0
    while drawn < count:
        if stats["draws"] >= limit:
            raise ZooError(f"drew {stats['draws']} shapes and kept only {drawn} of {count}: the caps (FLOP in "
                           f"[{min_flop:g}, {max_flop:g}], A + B + C <= {max_bytes / 2**30:g} GiB) leave too "
                           "little room")
        stats["draws"] += 1
        s = tuple(log_uniform_int(rng, 1, DIM_MAX) for _ in range(3))
        if not (min_flop <= flop(s) <= max_flop):
            stats["outside_flop_window"] += 1
        elif operand_bytes(s) > max_bytes:
            stats["over_memory_cap"] += 1
        elif s in seen:
            stats["duplicates"] += 1
        else:
            seen.add(s)
            shapes.append(s + (RANDOM,))
            drawn += 1

    record = {
        "seed": seed,
        "count": count,
        "total": len(shapes),
        "caps": {"dim_min": 1, "dim_max": DIM_MAX, "min_flop": min_flop, "max_flop": max_flop,
                 "max_bytes": int(max_bytes), "family_max": family_max},
        "families": fam_record,
        "random": stats,
    }
    return shapes, record
