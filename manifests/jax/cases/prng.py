"""jax.random.PRNGKey (the study's PRNG_test.py): keys are deterministic in the seed and
drive reproducible, well-distributed streams."""

import numpy as np
from _jaxhelp import INTS, MODES

from portbench_runner.api import case, sweep


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


# The same seed value in any integer dtype gives the same key, hence the same stream (the
# sibling prngkey.py checks the key words; this checks the draws they drive), eager and jit.
@sweep("same-stream-{dtype}-{mode}-sweep", dtype=INTS, mode=MODES)
def prng_seed_dtype_stream(ctx, dtype, mode):
    import jax

    def draw(seed):
        return jax.random.uniform(jax.random.PRNGKey(seed), (64,))

    out = ctx.measure(ctx.in_mode(mode, draw), ctx.put(np.asarray(11, dtype=dtype)))
    ctx.check_equal(out, ctx.to_numpy(draw(ctx.put(np.asarray(11, dtype="int32")))))


# split and fold_in round trips: under jit they give the eager keys bit for bit; split's
# children are uint32 key pairs, distinct from each other and from the parent; fold_in is
# deterministic in (key, data) and distinct across data; a stream from a split child equals
# the one from the same child taken again.
@sweep("split-fold-in-{mode}-sweep", mode=MODES)
def prng_split_fold_in(ctx, mode):
    import jax

    def derive(key):
        children = jax.random.split(key, 3)
        folded = jax.vmap(lambda i: jax.random.fold_in(key, i))(jax.numpy.arange(4))
        return children, folded

    key = jax.random.PRNGKey(5)
    children, folded = ctx.measure(ctx.in_mode(mode, derive), key)
    eager_children, eager_folded = derive(key)
    children, folded = np.asarray(ctx.to_numpy(children)), np.asarray(ctx.to_numpy(folded))
    ctx.check_equal(children, ctx.to_numpy(eager_children))
    ctx.check_equal(folded, ctx.to_numpy(eager_folded))
    ctx.check(children.dtype == np.uint32 and children.shape == (3, 2), f"{children.shape}")
    rows = {tuple(r) for r in children} | {tuple(np.asarray(ctx.to_numpy(key)))}
    ctx.check(len(rows) == 4, "split children repeat each other or the parent")
    ctx.check(len({tuple(r) for r in folded}) == 4, "fold_in gave equal keys for distinct data")
    single = np.asarray(ctx.to_numpy(jax.random.fold_in(key, 2)))
    ctx.check_equal(folded[2], single)
    again = jax.random.normal(jax.random.split(key, 3)[1], (8,))
    ctx.check_equal(jax.random.normal(children[1], (8,)), ctx.to_numpy(again))


# The key implementations PRNGKey takes through impl= (JAX >= 0.4.16): threefry keys are
# two uint32 words, rbg and unsafe_rbg four; each, wrapped as a typed key of its impl,
# draws a reproducible uniform stream.
@sweep("impl-{impl}-sweep", impl=["threefry2x32", "rbg", "unsafe_rbg"])
def prng_impls(ctx, impl):
    import inspect

    import jax

    if "impl" not in inspect.signature(jax.random.PRNGKey).parameters:
        ctx.skip(f"jax {ctx.version}'s PRNGKey has no impl= argument")
    key = ctx.measure(jax.random.PRNGKey, 3, impl=impl)
    data = np.asarray(ctx.to_numpy(key))
    words = 2 if impl == "threefry2x32" else 4
    ctx.check(data.dtype == np.uint32 and data.shape == (words,), f"{data.dtype} {data.shape}")

    # A raw key of another impl is read as the default impl's: wrap it to draw from it.
    def draw(raw):
        return jax.random.uniform(jax.random.wrap_key_data(raw, impl=impl), (256,))

    first = ctx.to_numpy(draw(key))
    again = ctx.to_numpy(draw(jax.random.PRNGKey(3, impl=impl)))
    ctx.check_equal(first, again)
    ctx.check(first.min() >= 0 and first.max() < 1, "uniform left [0, 1)")


# Typed keys (jax.random.key, JAX >= 0.4.16): key_data of key(seed) is PRNGKey(seed)'s raw
# words, and wrap_key_data(PRNGKey(seed)) draws the raw key's stream; eager and jit.
@sweep("typed-key-round-trip-{mode}-sweep", mode=MODES)
def prng_typed_key(ctx, mode):
    import jax

    if not hasattr(jax.random, "key") or not hasattr(jax.random, "wrap_key_data"):
        ctx.skip(f"jax {ctx.version} has no typed keys (jax.random.key, wrap_key_data)")

    def round_trip(seed):
        typed = jax.random.key(seed)
        raw = jax.random.key_data(typed)
        rewrapped = jax.random.wrap_key_data(jax.random.PRNGKey(seed))
        return raw, jax.random.uniform(rewrapped, (16,))

    raw, draws = ctx.measure(ctx.in_mode(mode, round_trip), ctx.put(np.int32(21)))
    ctx.check_equal(raw, ctx.to_numpy(jax.random.PRNGKey(21)))
    ctx.check_equal(draws, ctx.to_numpy(jax.random.uniform(jax.random.PRNGKey(21), (16,))))


# By design a seed must be an integer: a float seed is refused (TypeError), eager and jit.
@sweep("float-seed-refused-{mode}-sweep", mode=MODES)
def prng_float_seed(ctx, mode):
    import jax

    def attempt():
        try:
            ctx.in_mode(mode, jax.random.PRNGKey)(ctx.put(np.float32(1.5)))
        except TypeError:
            return True
        return False

    ctx.check(ctx.measure(attempt), "PRNGKey accepted a float32 seed", category="type")
