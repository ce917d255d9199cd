"""jax.random.PRNGKey (the study's PRNGKey_test.py): the key's layout and values, seeds of
every width, under jit and vmap."""

import numpy as np
from _jaxhelp import INTS, MODES

from portbench_runner.api import case, sweep


@case("key-is-uint32-pair")
def prngkey_layout(ctx):
    import jax

    key = ctx.measure(jax.random.PRNGKey, 42)
    data = np.asarray(ctx.to_numpy(key))
    ctx.check(
        data.dtype == np.uint32 and data.shape == (2,),
        f"key has dtype {data.dtype}, shape {data.shape}",
    )
    # The default threefry key holds the seed's high and low 32 bits.
    ctx.check_equal(data, [0, 42])


@case("seed-64-bit")
def prngkey_wide_seed(ctx):
    import jax

    seed = 2**40 + 5
    ctx.check_equal(ctx.measure(jax.random.PRNGKey, seed), [2**40 >> 32, 5])


@case("under-jit")
def prngkey_jit(ctx):
    import jax

    out = ctx.measure(jax.jit(jax.random.PRNGKey), ctx.put(np.int32(9)))
    ctx.check_equal(out, [0, 9])


@case("vmap-over-seeds")
def prngkey_vmap(ctx):
    import jax

    seeds = ctx.put(np.arange(5, dtype="int32"))
    out = ctx.measure(jax.vmap(jax.random.PRNGKey), seeds)
    ctx.check_equal(out, np.stack([np.zeros(5), np.arange(5)], axis=1))


# Seeds of every integer width (unsigned included) on the device, eager and under jax.jit:
# the key holds the seed's high and low 32 bits (64-bit seeds use both words); new names,
# so the cases above keep their ids.
@sweep("seed-{dtype}-{mode}-sweep", dtype=INTS, mode=MODES)
def prngkey_seed_dtypes(ctx, dtype, mode):
    import jax

    seed = 2**40 + 5 if dtype.endswith("64") else 7
    out = ctx.measure(ctx.in_mode(mode, jax.random.PRNGKey), ctx.put(np.asarray(seed, dtype=dtype)))
    data = np.asarray(ctx.to_numpy(out))
    ctx.check(
        data.dtype == np.uint32 and data.shape == (2,), f"key {data.dtype} {data.shape}", "type"
    )
    ctx.check_equal(data, [seed >> 32, seed & 0xFFFFFFFF])


# Golden values: the keys PRNGKey(42) derives, recorded by running JAX itself on the CPU
# (eager and jax.jit agree) at jax 0.4.13 (paper-nearest) and 0.10.2 (current). split's
# children changed in 0.5.0 (jax_threefry_partitionable became the default); fold_in did
# not. Rows are (first release, values); None: releases never recorded (the case skips).
GOLDEN_KEYS = {
    "split": (
        ("0.4.13", [[3134548294, 3733159049], [3746501087, 894150801], [801545058, 2363201431]]),
        ("0.5.0", None),
        ("0.10.2", [[1832780943, 270669613], [64467757, 2916123636], [2465931498, 255383827]]),
    ),
    "fold-in": (("0.4.13", [2547012911, 1371500959]),),
}


# The study's other kinds of paths: golden values of the derived keys (above), and the
# documented error for a seed that is not a scalar (exact type and message). New names; the
# cases above keep their ids.
@sweep("golden-{derive}-{mode}-sweep", derive=["split", "fold-in"], mode=MODES)
def prngkey_golden(ctx, derive, mode):
    import jax
    from _jaxhelp import check_golden

    def derived(seed):
        key = jax.random.PRNGKey(seed)
        return jax.random.split(key, 3) if derive == "split" else jax.random.fold_in(key, 7)

    out = ctx.measure(ctx.in_mode(mode, derived), ctx.put(np.int32(42)))
    check_golden(ctx, out, GOLDEN_KEYS[derive], what=f"{derive} of PRNGKey(42)")


@case("error-vector-seed")
def prngkey_error(ctx):
    import jax
    from _jaxhelp import check_raises

    seeds = ctx.put(np.arange(2, dtype="int32"))
    check_raises(
        ctx, lambda: jax.random.PRNGKey(seeds), TypeError, r"PRNGKey accepts a scalar seed"
    )
