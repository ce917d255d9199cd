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


# Golden values: the streams of PRNGKey(42), recorded by running jax.random itself on the CPU
# (eager and jax.jit agree) at jax 0.4.13 (the paper-nearest profile) and 0.10.2 (current).
# JAX promises the same numbers for a key on every device within a release, not across
# releases: 0.5.0 made jax_threefry_partitionable the default, which changed bits, uniform,
# normal and randint. Rows are (first release, values); a row of None covers releases in
# between that were never recorded (the case skips there); the last row holds until a
# release changes the stream, when the case fails and a new row is recorded.
GOLDEN_DRAWS = {
    # jax.random.bits(key, (8,), dtype=uint32)
    "bits": (
        (
            "0.4.13",
            [
                2954079971,
                2575172198,
                1139032965,
                1035738655,
                3276725750,
                1223413151,
                173471767,
                13772463,
            ],
        ),
        ("0.5.0", None),
        (
            "0.10.2",
            [
                2098992034,
                2919706841,
                2646866425,
                2409546199,
                1935504149,
                2516274904,
                321304473,
                3329172656,
            ],
        ),
    ),
    # jax.random.uniform(key, (8,), float32), as the bit patterns of the floats (exact).
    "uniform": (
        (
            "0.4.13",
            [
                0x3F3013AE,
                0x3F197E02,
                0x3E87C884,
                0x3E76F078,
                0x3F434EDC,
                0x3E91D798,
                0x3D256F80,
                0x3B522600,
            ],
        ),
        ("0.5.0", None),
        (
            "0.10.2",
            [
                0x3EFA3824,
                0x3F2E0730,
                0x3F1DC3F8,
                0x3F0F9EC0,
                0x3EE6BAE4,
                0x3F15FB4E,
                0x3D9935B0,
                0x3F466F24,
            ],
        ),
    ),
    # jax.random.normal(key, (6,), float32): the inverse error function is computed by each
    # device's own arithmetic, so these are compared within a few float32 ulps.
    "normal": (
        (
            "0.4.13",
            [
                0.6122652292251587,
                1.1225882768630981,
                1.1373317241668701,
                -0.8127325177192688,
                -0.890404999256134,
                0.12623144686222076,
            ],
        ),
        ("0.5.0", None),
        (
            "0.10.2",
            [
                -0.02830461598932743,
                0.4671318531036377,
                0.2957029640674591,
                0.15354591608047485,
                -0.12403281778097153,
                0.21692314743995667,
            ],
        ),
    ),
    # jax.random.randint(key, (8,), 0, 1000) (int64: x64 is on in the cell).
    "randint": (
        ("0.4.13", [714, 830, 716, 131, 516, 964, 225, 330]),
        ("0.5.0", None),
        ("0.10.2", [85, 718, 503, 271, 505, 146, 904, 877]),
    ),
}


# The study's other kinds of paths: golden values of the streams (above), the documented
# errors for a bad key and a bad dtype (exact type and message), index forms of a batch of
# keys (slices, reversal, gathers and a typed key's indexing give the keys split made),
# jax.vmap over keys (each row draws its own stream), and checkpoint and restore of a key
# (saved with NumPy and loaded, or a typed key's data rewrapped: the restored key continues
# the same stream). New names; the cases above keep their ids.
@sweep("golden-{draw}-{mode}-sweep", draw=["bits", "uniform", "normal", "randint"], mode=MODES)
def prng_golden(ctx, draw, mode):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import check_golden

    def sample(key):
        if draw == "bits":
            return jax.random.bits(key, (8,), dtype=jnp.uint32)
        if draw == "uniform":
            return jax.random.uniform(key, (8,), dtype=jnp.float32)
        if draw == "normal":
            return jax.random.normal(key, (6,), dtype=jnp.float32)
        return jax.random.randint(key, (8,), 0, 1000)

    out = ctx.measure(ctx.in_mode(mode, sample), jax.random.PRNGKey(42))
    if draw == "uniform":
        out = np.asarray(ctx.to_numpy(out)).view(np.uint32)
    check_golden(
        ctx,
        out,
        GOLDEN_DRAWS[draw],
        what=f"{draw} of PRNGKey(42)",
        rtol=1e-6 if draw == "normal" else 0.0,
    )


@sweep("error-{form}", form=["key-data-shape", "integer-uniform-dtype"])
def prng_errors(ctx, form):
    import jax
    from _jaxhelp import check_raises

    if form == "key-data-shape":
        bad = ctx.put(np.ones(3, dtype="uint32"))
        check_raises(
            ctx,
            lambda: jax.random.uniform(bad, (2,)),
            TypeError,
            r"invalid PRNG key data: expected key_data\.shape to end with \(2,\)",
        )
    else:
        key = jax.random.PRNGKey(0)
        check_raises(
            ctx,
            lambda: jax.random.uniform(key, (2,), dtype="int32"),
            ValueError,
            r"dtype argument to `uniform` must be a float dtype",
        )


@sweep(
    "index-{form}-{mode}-sweep", form=["slice", "reversed", "gather", "typed-key-item"], mode=MODES
)
def prng_index_forms(ctx, form, mode):
    import jax
    import jax.numpy as jnp

    if form == "typed-key-item" and not hasattr(jax.random, "key"):
        ctx.skip(f"jax {ctx.version} has no typed keys (jax.random.key)")

    def pick(seed):
        if form == "typed-key-item":
            keys = jax.random.split(jax.random.key(seed), 4)
            return jax.random.key_data(keys[2]), jax.random.uniform(keys[2], (4,))
        keys = jax.random.split(jax.random.PRNGKey(seed), 4)
        chosen = {"slice": keys[1:3], "reversed": keys[::-1], "gather": keys[jnp.array([3, 0, 3])]}[
            form
        ]
        return chosen, jax.vmap(lambda k: jax.random.uniform(k, (4,)))(chosen)

    chosen, draws = ctx.measure(ctx.in_mode(mode, pick), ctx.put(np.int32(8)))
    rows = np.asarray(ctx.to_numpy(jax.random.split(jax.random.PRNGKey(8), 4)))
    want = {
        "slice": rows[1:3],
        "reversed": rows[::-1],
        "gather": rows[[3, 0, 3]],
        "typed-key-item": rows[2],
    }[form]
    ctx.check_equal(chosen, want)
    expected = [np.asarray(ctx.to_numpy(jax.random.uniform(k, (4,)))) for k in np.atleast_2d(want)]
    ctx.check_equal(draws, expected[0] if form == "typed-key-item" else np.stack(expected))


@sweep("vmap-{mode}-sweep", mode=MODES)
def prng_vmap_keys(ctx, mode):
    import jax

    keys = jax.random.split(jax.random.PRNGKey(13), 5)
    out = ctx.measure(ctx.in_mode(mode, jax.vmap(lambda k: jax.random.normal(k, (3,)))), keys)
    each = np.stack([np.asarray(ctx.to_numpy(jax.random.normal(keys[i], (3,)))) for i in range(5)])
    ctx.check_equal(out, each)
    ctx.check(
        len({tuple(r) for r in np.asarray(ctx.to_numpy(out))}) == 5,
        "two keys drew the same stream",
        "other",
    )


@sweep("checkpoint-{form}-sweep", form=["raw-key-npy", "typed-key-data"])
def prng_checkpoint(ctx, form):
    import os
    import tempfile

    import jax

    if form == "typed-key-data" and not hasattr(jax.random, "wrap_key_data"):
        ctx.skip(f"jax {ctx.version} has no typed-key round trip (jax.random.wrap_key_data)")
    key = jax.random.key(5) if form == "typed-key-data" else jax.random.PRNGKey(5)
    key, used = jax.random.split(key)
    first = jax.random.uniform(used, (4,))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "key.npy")
        data = jax.random.key_data(key) if form == "typed-key-data" else key
        np.save(path, np.asarray(ctx.to_numpy(data)))

        def restore_and_draw():
            raw = ctx.put(np.load(path))
            restored = jax.random.wrap_key_data(raw) if form == "typed-key-data" else raw
            return jax.random.uniform(jax.random.split(restored)[1], (4,))

        out = ctx.measure(restore_and_draw)
    continued = jax.random.uniform(jax.random.split(key)[1], (4,))
    ctx.check_equal(out, ctx.to_numpy(continued))
    ctx.check(
        not np.array_equal(ctx.to_numpy(out), ctx.to_numpy(first)),
        "the restored key repeated a used stream",
        "other",
    )
