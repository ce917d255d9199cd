"""jax.random.PRNGKey (the study's PRNG_test.py): keys are deterministic in the seed and
drive reproducible, well-distributed streams."""

import numpy as np

from portbench_runner.api import case


@case("prng-same-seed-same-stream")
def prng_deterministic(ctx):
    import jax

    def draw(seed):
        return jax.random.uniform(jax.random.PRNGKey(seed), (1000,))

    first = ctx.to_numpy(ctx.measure(draw, 7))
    again = ctx.to_numpy(draw(7))
    other = ctx.to_numpy(draw(8))
    ctx.check(np.array_equal(first, again), "the same seed gave different streams")
    ctx.check(not np.array_equal(first, other), "different seeds gave the same stream")


@case("prng-uniform-moments")
def prng_uniform(ctx):
    import jax

    x = ctx.to_numpy(ctx.measure(lambda: jax.random.uniform(jax.random.PRNGKey(0), (1_000_000,))))
    ctx.check(
        abs(x.mean() - 0.5) < 5e-3 and abs(x.var() - 1 / 12) < 5e-3,
        f"mean {x.mean()}, var {x.var()}",
    )
    ctx.check(x.min() >= 0.0 and x.max() < 1.0, "uniform samples left [0, 1)")


@case("prng-split-keys-differ")
def prng_split(ctx):
    import jax

    keys = ctx.measure(jax.random.split, jax.random.PRNGKey(3), 4)
    data = np.asarray(ctx.to_numpy(keys))
    rows = {tuple(row) for row in data.reshape(4, -1)}
    ctx.check(len(rows) == 4, "split produced repeated keys")


@case("prng-normal-jit")
def prng_normal(ctx):
    import jax

    f = jax.jit(lambda key: jax.random.normal(key, (200_000,)))
    x = ctx.to_numpy(ctx.measure(f, jax.random.PRNGKey(11)))
    ctx.check(abs(x.mean()) < 1e-2 and abs(x.std() - 1) < 1e-2, f"mean {x.mean()}, std {x.std()}")
