"""jax._src.interpreters.partial_eval.trace_to_jaxpr_dynamic (private): traces a function
on abstract inputs into a jaxpr that evaluates to the function's values."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, np_dtype

from portbench_runner.api import case, sweep


def _trace(ctx, fn, avals):
    """Trace ``fn`` (returning a tuple of outputs, as the API requires) on ``avals``."""
    import inspect

    pe = ctx.require("jax._src.interpreters.partial_eval")
    lu = ctx.require("jax._src.linear_util")
    if "debug_info" in inspect.signature(lu.wrap_init).parameters:
        api_util = ctx.require("jax._src.api_util")
        dbg = api_util.debug_info("portbench", fn, tuple(avals), {})
        wrapped = lu.wrap_init(fn, debug_info=dbg)
    else:
        wrapped = lu.wrap_init(fn)
    result = pe.trace_to_jaxpr_dynamic(wrapped, list(avals))
    return result[0], result[2]


def _aval(ctx, shape, dtype):
    core = ctx.require("jax._src.core")
    return core.ShapedArray(shape, np.dtype(dtype))


@case("elementwise")
def trace_elementwise(ctx):
    import jax.numpy as jnp

    jaxpr, consts = ctx.measure(
        _trace, ctx, lambda x: (jnp.sin(x) + 1,), [_aval(ctx, (3,), "float32")]
    )
    ctx.check("sin" in str(jaxpr), f"no sin in {jaxpr}")
    core = ctx.require("jax._src.core")
    x = np.array([0.0, 1.0, 2.0], dtype="float32")
    out = core.eval_jaxpr(jaxpr, consts, x)
    ctx.check_close(out[0], np.sin(x.astype("float64")) + 1, dtype="float32", rtol=2e-5)


@case("two-inputs-reduction")
def trace_reduction(ctx):
    import jax.numpy as jnp

    jaxpr, _ = ctx.measure(
        _trace,
        ctx,
        lambda a, b: (jnp.sum(a * b),),
        [_aval(ctx, (4, 4), "float64"), _aval(ctx, (4, 4), "float64")],
    )
    ctx.check(
        len(jaxpr.invars) == 2 and len(jaxpr.outvars) == 1,
        f"jaxpr signature {jaxpr.invars} -> {jaxpr.outvars}",
    )


@case("out-avals-shapes")
def trace_out_avals(ctx):
    import jax.numpy as jnp

    jaxpr, _ = ctx.measure(
        _trace, ctx, lambda x: (x.T, jnp.mean(x, axis=0)), [_aval(ctx, (3, 5), "float32")]
    )
    shapes = [tuple(v.aval.shape) for v in jaxpr.outvars]
    ctx.check(shapes == [(5, 3), (5,)], f"output shapes {shapes}")


# Tracing on abstract inputs of every dtype: the jaxpr's output aval keeps the dtype and
# the jaxpr evaluates to the function's values (transpose-and-flip: exact); new names, so
# the cases above keep their ids.
@sweep("{dtype}-sweep", dtype=EVERY_DTYPE)
def trace_dtypes(ctx, dtype):
    import jax.numpy as jnp
    from _jaxhelp import draw, placed

    want_dtype = np_dtype(dtype)
    jaxpr, consts = ctx.measure(
        _trace, ctx, lambda x: (jnp.flip(x.T, axis=0),), [_aval(ctx, (3, 5), want_dtype)]
    )
    aval = jaxpr.outvars[0].aval
    ctx.check(
        tuple(aval.shape) == (5, 3) and np.dtype(aval.dtype) == want_dtype,
        f"output aval {aval}",
        "type",
    )
    x, exact = placed(ctx, draw(ctx, (3, 5), dtype, 0, 9), dtype)
    core = ctx.require("jax._src.core")
    out = core.eval_jaxpr(jaxpr, consts, x)[0]
    ctx.check_equal(
        np.asarray(ctx.to_numpy(out)),
        np.flip(exact.T, axis=0).astype(np.asarray(ctx.to_numpy(x)).dtype),
    )


# The study's other kind of path here: a transformed function traced (jax.vmap of a
# function: the jaxpr takes the batched avals and evaluates to the mapped values). The
# private tracer checks nothing it is given beyond what tracing checks, so it has no
# documented error path. New name; the cases above keep their ids.
@case("vmap-traced")
def trace_vmap(ctx):
    import jax
    import jax.numpy as jnp

    f = jax.vmap(lambda v: jnp.sum(v * v))
    jaxpr, consts = ctx.measure(_trace, ctx, lambda x: (f(x),), [_aval(ctx, (5, 3), "float64")])
    ctx.check(
        len(jaxpr.outvars) == 1 and tuple(jaxpr.outvars[0].aval.shape) == (5,),
        f"jaxpr {jaxpr}",
        "other",
    )
    core = ctx.require("jax._src.core")
    x = ctx.rng.uniform(-2, 2, (5, 3))
    out = core.eval_jaxpr(jaxpr, consts, x)
    ctx.check_close(out[0], (x * x).sum(axis=1), dtype="float64")
