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
