"""jax.disable_jit: inside the context, jitted functions run op by op (Python side effects
happen on every call, values stay concrete); outside, tracing resumes."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, FLOATS_32_64, GRAD_FLOATS, MODES

from portbench_runner.api import case, sweep


@case("python-runs-every-call")
def disable_jit_side_effects(ctx):
    import jax

    calls = []

    @jax.jit
    def f(x):
        calls.append(1)
        return x * 2

    x = ctx.put(np.float32(1.0))
    f(x)
    f(x)
    traced_calls = len(calls)

    def run_disabled():
        with jax.disable_jit():
            f(x)
            f(x)

    ctx.measure(run_disabled, warm=False)
    ctx.check(
        traced_calls == 1 and len(calls) == 3,
        f"python bodies ran {calls}; expected 1 traced + 2 eager",
    )


@case("values-are-concrete")
def disable_jit_concrete(ctx):
    import jax

    seen = []

    @jax.jit
    def f(x):
        seen.append(float(x.sum()))  # a tracer would refuse float()
        return x + 1

    def run():
        with jax.disable_jit():
            return f(ctx.put(np.arange(3, dtype="float32")))

    out = ctx.measure(run, warm=False)
    ctx.check_equal(out, [1.0, 2.0, 3.0])
    ctx.check(seen == [3.0], f"saw {seen}")


@case("same-results-as-jit")
def disable_jit_equivalent(ctx):
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda x: jnp.tanh(x) @ x.T)
    x = ctx.put(ctx.rng.standard_normal((32, 32)).astype("float32"))
    jitted = ctx.to_numpy(f(x))

    def eager():
        with jax.disable_jit():
            return f(x)

    ctx.check_close(ctx.measure(eager), jitted, dtype="float32", rtol=1e-4, atol=1e-4)


# A jitted function of every dtype run under disable_jit: its body sees concrete values
# (no tracer) and computes what jit does (a flip: exact); new names, so the cases above
# keep their ids.
@sweep("{dtype}-sweep", dtype=EVERY_DTYPE)
def disable_jit_dtypes(ctx, dtype):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import draw, out_dtype, placed

    x, exact = placed(ctx, draw(ctx, (3, 4), dtype, 0, 9), dtype)
    seen = []

    @jax.jit
    def f(v):
        seen.append(isinstance(v, jax.core.Tracer))
        return jnp.flip(v, axis=1)

    def run():
        with jax.disable_jit():
            return f(x)

    out = ctx.measure(run)
    ctx.check(seen and not any(seen), f"the body saw tracers {seen} under disable_jit", "other")
    ctx.check(out_dtype(ctx, out) == dtype, f"{dtype} came back {out_dtype(ctx, out)}", "type")
    ctx.check_equal(out, np.flip(exact, axis=1).astype(out_dtype(ctx, out)))


# jax.grad of a jitted function under disable_jit in each float width: d/dx sum(x**2) = 2x.
@sweep("grad-{dtype}-sweep", dtype=GRAD_FLOATS)
def disable_jit_grad_dtypes(ctx, dtype):
    import jax
    from _jaxhelp import swept_grad

    f = jax.jit(lambda x: x * x)

    def disabled(v):
        with jax.disable_jit():
            return f(v)

    swept_grad(ctx, disabled, lambda x: 2 * x, dtype, "eager")


# The study's other kinds of paths: the documented error disable_jit exists to avoid (Python
# control flow on a traced value under jax.jit: exact type per release, since jax 0.4.14
# raises the TracerBoolConversionError subclass), and transforms under disable_jit: jax.vmap
# and the second derivative (grad of grad) of a jitted function give what the jitted
# function gives. New names; the cases above keep their ids.
@case("error-python-branch-on-tracer")
def disable_jit_error(ctx):
    import jax
    from _jaxhelp import check_raises, for_release

    f = jax.jit(lambda v: v * 2 if v > 0 else -v)
    exc = for_release(
        ctx,
        (
            ("0.4", jax.errors.ConcretizationTypeError),
            ("0.4.14", getattr(jax.errors, "TracerBoolConversionError", None)),
        ),
    )
    check_raises(ctx, lambda: f(ctx.put(np.float32(1.0))), exc, r"traced array with shape bool\[\]")


@sweep("vmap-{mode}-sweep", mode=MODES)
def disable_jit_vmap(ctx, mode):
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda v: jnp.sin(v) * jnp.sum(v))
    x = ctx.rng.uniform(-2, 2, (6, 5)).astype("float32")
    with_jit = np.asarray(ctx.to_numpy(jax.vmap(f)(ctx.put(x))))

    def run(v):
        with jax.disable_jit():
            return ctx.in_mode(mode, jax.vmap(f))(v)

    out = ctx.measure(run, ctx.put(x))
    ctx.check_close(out, with_jit, dtype="float32", rtol=1e-5, atol=1e-5)
    ctx.check_close(
        out,
        np.sin(x.astype("float64")) * x.astype("float64").sum(axis=1, keepdims=True),
        rtol=1e-5,
        atol=1e-5,
    )


@sweep("grad2-{dtype}-sweep", dtype=FLOATS_32_64)
def disable_jit_grad2(ctx, dtype):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import check_swept, grad2

    f = jax.jit(lambda v: jnp.sin(v) * v)
    x = ctx.put(ctx.rng.uniform(-2, 2, 32).astype(dtype))

    def run(v):
        with jax.disable_jit():
            return grad2(f)(v)

    out = ctx.measure(run, x)
    exact = np.asarray(ctx.to_numpy(x)).astype("float64")
    check_swept(ctx, out, 2 * np.cos(exact) - exact * np.sin(exact))
