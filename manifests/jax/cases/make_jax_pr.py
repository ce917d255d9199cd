"""jax.make_jaxpr: traces functions into jaxprs naming their primitives, shapes and outputs."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, FLOATS_32_64, np_dtype

from portbench_runner.api import case, sweep


@case("primitives-listed")
def make_jaxpr_primitives(ctx):
    import jax
    import jax.numpy as jnp

    jaxpr = ctx.measure(
        jax.make_jaxpr(lambda x: jnp.sin(x) * jnp.cos(x)), ctx.put(np.ones(3, dtype="float32"))
    )
    text = str(jaxpr)
    ctx.check(all(p in text for p in ("sin", "cos", "mul")), f"primitives missing: {text}")


@case("shapes-and-dtypes")
def make_jaxpr_avals(ctx):
    import jax
    import jax.numpy as jnp

    closed = ctx.measure(
        jax.make_jaxpr(lambda x: jnp.sum(x, axis=0)), ctx.put(np.ones((4, 5), dtype="float64"))
    )
    out = closed.out_avals[0] if hasattr(closed, "out_avals") else closed.jaxpr.outvars[0].aval
    ctx.check(tuple(out.shape) == (5,) and str(out.dtype) == "float64", f"output aval {out}")


@case("static-argnums")
def make_jaxpr_static(ctx):
    import jax

    f = jax.make_jaxpr(lambda x, n: x * n, static_argnums=(1,))
    jaxpr = ctx.measure(f, ctx.put(np.float32(2.0)), 7)
    ctx.check("7" in str(jaxpr), f"the static argument is not folded in: {jaxpr}")


@case("jaxpr-evaluates")
def make_jaxpr_eval(ctx):
    import jax
    import jax.numpy as jnp

    closed = jax.make_jaxpr(lambda x: jnp.exp(x) - 1)(np.zeros(3, dtype="float32"))
    x = np.array([0.0, 1.0, 2.0], dtype="float32")
    out = ctx.measure(
        jax.core.eval_jaxpr if hasattr(jax.core, "eval_jaxpr") else jax.extend.core.eval_jaxpr,
        closed.jaxpr,
        closed.consts,
        ctx.put(x),
    )
    ctx.check_close(out[0], np.expm1(x.astype("float64")), dtype="float32", rtol=2e-5)


# make_jaxpr of a function of every dtype, traced from a device array and from an abstract
# jax.ShapeDtypeStruct: the output aval keeps shape and dtype, and the array's jaxpr
# evaluates to the function's values (a transpose-and-flip: exact); new names, so the
# cases above keep their ids.
@sweep("{dtype}-{form}-sweep", dtype=EVERY_DTYPE, form=("array", "shape-dtype-struct"))
def make_jaxpr_dtypes(ctx, dtype, form):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import draw, placed

    x, exact = placed(ctx, draw(ctx, (3, 5), dtype, 0, 9), dtype)
    fn = lambda v: jnp.flip(v.T, axis=0)  # noqa: E731
    arg = x if form == "array" else jax.ShapeDtypeStruct((3, 5), np_dtype(dtype))
    closed = ctx.measure(jax.make_jaxpr(fn), arg)
    out = closed.out_avals[0] if hasattr(closed, "out_avals") else closed.jaxpr.outvars[0].aval
    ctx.check(tuple(out.shape) == (5, 3) and str(out.dtype) == dtype, f"output aval {out}", "type")
    if form == "array":
        core = jax.core if hasattr(jax.core, "eval_jaxpr") else jax.extend.core
        value = core.eval_jaxpr(closed.jaxpr, closed.consts, x)[0]
        ctx.check_equal(value, np.flip(exact.T, axis=0).astype(str(value.dtype)))


# The study's other kinds of paths: the documented error for a function that returns no JAX
# type (exact type and message), the full grid of make_jaxpr's flags (static_argnums x
# return_shape), and transforms traced: the jaxpr of jax.vmap of a function has the batched
# shapes and evaluates to the mapped values, the jaxpr of grad of grad evaluates to the
# second derivative (float32 and float64). New names; the cases above keep their ids.
@case("error-returns-a-string")
def make_jaxpr_error(ctx):
    import jax
    from _jaxhelp import check_raises

    check_raises(
        ctx, lambda: jax.make_jaxpr(lambda v: "x")(1.0), TypeError, r"is not a valid JAX type"
    )


@sweep(
    "flags-{static}-{shape}-sweep",
    static=["static-argnum", "all-traced"],
    shape=["return-shape", "jaxpr-only"],
)
def make_jaxpr_flags(ctx, static, shape):
    import jax
    import jax.numpy as jnp

    def f(x, n):
        return jnp.tile(x, n) if static == "static-argnum" else x * n

    kw = {"static_argnums": (1,)} if static == "static-argnum" else {}
    maker = jax.make_jaxpr(f, return_shape=shape == "return-shape", **kw)
    x = np.arange(3.0)
    result = ctx.measure(maker, ctx.put(x), 2)
    closed = result[0] if shape == "return-shape" else result
    core = ctx.require("jax._src.core")
    values = core.eval_jaxpr(
        closed.jaxpr, closed.consts, ctx.put(x), *([] if static == "static-argnum" else [2])
    )
    expected = np.tile(x, 2) if static == "static-argnum" else x * 2
    ctx.check_close(values[0], expected, dtype="float64")
    if shape == "return-shape":
        struct = result[1]
        ctx.check(
            tuple(struct.shape) == expected.shape and str(struct.dtype) == "float64",
            f"shape {struct}",
            "other",
        )


@case("vmap-jaxpr-evaluates")
def make_jaxpr_vmap(ctx):
    import jax
    import jax.numpy as jnp

    f = jax.vmap(lambda v: jnp.sum(jnp.sin(v)))
    x = ctx.rng.uniform(-2, 2, (5, 4))
    closed = ctx.measure(jax.make_jaxpr(f), ctx.put(x))
    core = ctx.require("jax._src.core")
    ctx.check(
        tuple(closed.in_avals[0].shape) == (5, 4) and tuple(closed.out_avals[0].shape) == (5,),
        f"avals {closed.in_avals} -> {closed.out_avals}",
        "other",
    )
    out = core.eval_jaxpr(closed.jaxpr, closed.consts, ctx.put(x))[0]
    ctx.check_close(out, np.sin(x).sum(axis=1), dtype="float64")


@sweep("grad2-{dtype}-sweep", dtype=FLOATS_32_64)
def make_jaxpr_grad2(ctx, dtype):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import check_swept

    f = jax.grad(jax.grad(lambda v: jnp.sin(v) * v))
    x = ctx.rng.uniform(-2, 2, ()).astype(dtype)
    closed = ctx.measure(jax.make_jaxpr(f), ctx.put(x))
    core = ctx.require("jax._src.core")
    out = core.eval_jaxpr(closed.jaxpr, closed.consts, ctx.put(x))[0]
    v = float(x)
    check_swept(ctx, out, np.asarray(2 * np.cos(v) - v * np.sin(v)))
