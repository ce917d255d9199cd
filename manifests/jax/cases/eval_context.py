"""jax.core.eval_context: inside a trace, computations in the context are concrete values."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES, np_dtype

from portbench_runner.api import case, sweep


def _eval_context(ctx):
    import jax

    return ctx.require("jax.core.eval_context") if hasattr(jax, "core") else ctx.skip("no jax.core")


@case("concrete-inside-jit")
def eval_context_concrete(ctx):
    import jax
    import jax.numpy as jnp

    eval_context = _eval_context(ctx)
    captured = []

    @jax.jit
    def f(x):
        with eval_context():
            constant = jnp.arange(3.0) * 2
        captured.append(constant)
        return x + constant

    out = ctx.measure(f, ctx.put(np.zeros(3)), warm=False)
    ctx.check_equal(out, [0.0, 2.0, 4.0])
    ctx.check(
        isinstance(captured[0], jax.Array),
        f"the value in eval_context was {type(captured[0]).__name__}",
    )


@case("plain-eager-use")
def eval_context_eager(ctx):
    import jax.numpy as jnp

    eval_context = _eval_context(ctx)

    def run():
        with eval_context():
            return jnp.ones(4) * 3

    ctx.check_equal(ctx.measure(run), [3.0, 3.0, 3.0, 3.0])


@case("nested-contexts")
def eval_context_nested(ctx):
    import jax.numpy as jnp

    eval_context = _eval_context(ctx)

    def run():
        with eval_context(), eval_context():
            return jnp.float32(2) ** 3

    ctx.check_equal(ctx.measure(run), 8.0)


# Values of every dtype built inside eval_context, in an eager function and inside a jax.jit
# trace: each is a concrete jax.Array (never a tracer) of that dtype holding the values;
# new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def eval_context_dtypes(ctx, dtype, mode):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import draw, host_dtype, out_dtype

    eval_context = _eval_context(ctx)
    values = draw(ctx, (2, 4), dtype, 0, 9)
    if dtype == "bfloat16":
        values = np.round(values * 4) / 4  # exact in bfloat16: no rounding to account for
    captured = []

    def build(x):
        with eval_context():
            constant = jnp.flip(jnp.asarray(values, dtype=np_dtype(dtype)), axis=1)
        captured.append(constant)
        return x + 1

    ctx.measure(ctx.in_mode(mode, build), ctx.put(np.zeros(3, dtype="float32")), warm=False)
    got = captured[0]
    ctx.check(
        isinstance(got, jax.Array) and not isinstance(got, jax.core.Tracer),
        f"the value built in eval_context is a {type(got).__name__}",
        "other",
    )
    ctx.check(out_dtype(ctx, got) == dtype, f"{dtype} came back {out_dtype(ctx, got)}", "type")
    ctx.check_equal(
        np.asarray(ctx.to_numpy(got)), np.flip(values, axis=1).astype(host_dtype(dtype))
    )


# The study's other kinds of paths: the documented limit of eval_context as an error path (a
# tracer of the enclosing jax.jit stays abstract inside the context, so float() of it raises
# ConcretizationTypeError), and eval_context under jax.vmap (constants built inside it are
# concrete while the mapped function is traced). New names; the cases above keep their ids.
@case("error-outer-tracer-stays-abstract")
def eval_context_error(ctx):
    import jax
    from _jaxhelp import check_raises

    eval_context = _eval_context(ctx)

    @jax.jit
    def f(v):
        with eval_context():
            return float(v)

    check_raises(
        ctx,
        lambda: f(ctx.put(np.float32(1.0))),
        jax.errors.ConcretizationTypeError,
        r"Abstract tracer value encountered",
    )


@sweep("vmap-{mode}-sweep", mode=MODES)
def eval_context_vmap(ctx, mode):
    import jax
    import jax.numpy as jnp

    eval_context = _eval_context(ctx)
    kinds = []

    def f(v):
        with eval_context():
            constant = jnp.arange(4.0) + 1
        kinds.append(isinstance(constant, jax.Array))
        return v * constant

    x = ctx.rng.uniform(-2, 2, (3, 4))
    out = ctx.measure(ctx.in_mode(mode, jax.vmap(f)), ctx.put(x))
    ctx.check_close(out, x * (np.arange(4.0) + 1), dtype="float64")
    ctx.check(
        kinds and all(kinds), "a constant built in eval_context under vmap was a tracer", "other"
    )
