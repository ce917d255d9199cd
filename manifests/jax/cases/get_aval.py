"""jax._src.core.get_aval (private): the abstract value (shape, dtype, weak type) of a value."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, MODES, np_dtype

from portbench_runner.api import case, sweep


@case("device-array", shape=(3, 4), dtype="float32")
@case("float64-vector", shape=(7,), dtype="float64")
@case("int32-scalar", shape=(), dtype="int32")
@case("bool-matrix", shape=(2, 2), dtype="bool")
def get_aval_arrays(ctx, shape, dtype):
    get_aval = ctx.require("jax._src.core.get_aval")
    aval = ctx.measure(get_aval, ctx.put(np.zeros(shape, dtype=dtype)))
    ctx.check(tuple(aval.shape) == shape and str(aval.dtype) == dtype, f"aval {aval}")


@case("python-scalar-is-weak")
def get_aval_weak(ctx):
    get_aval = ctx.require("jax._src.core.get_aval")
    aval = ctx.measure(get_aval, 1.5)
    ctx.check(
        tuple(aval.shape) == () and getattr(aval, "weak_type", False), f"aval of 1.5 is {aval}"
    )


@case("tracer-inside-jit")
def get_aval_tracer(ctx):
    import jax

    get_aval = ctx.require("jax._src.core.get_aval")
    seen = []

    @jax.jit
    def f(x):
        seen.append(get_aval(x))
        return x

    ctx.measure(f, ctx.put(np.ones((5, 2), dtype="float32")), warm=False)
    ctx.check(tuple(seen[0].shape) == (5, 2), f"traced aval {seen[0]}")


# get_aval of every dtype's device array, NumPy scalar and traced array: the aval carries
# the shape and dtype, and none of them is weakly typed (only Python scalars are); new
# names, so the cases above keep their ids.
@sweep("{dtype}-{form}-sweep", dtype=EVERY_DTYPE, form=("array", "numpy-scalar", "traced"))
def get_aval_dtypes(ctx, dtype, form):
    import jax
    from _jaxhelp import draw

    get_aval = ctx.require("jax._src.core.get_aval")
    want_dtype = np_dtype(dtype)
    if form == "numpy-scalar":
        shape = ()
        aval = ctx.measure(get_aval, want_dtype.type(draw(ctx, (), dtype, 0, 9)))
    elif form == "array":
        shape = (3, 2)
        aval = ctx.measure(get_aval, ctx.put(draw(ctx, shape, dtype, 0, 9), dtype=dtype))
    else:
        shape = (4,)
        seen = []

        @jax.jit
        def f(x):
            seen.append(get_aval(x))
            return x

        ctx.measure(f, ctx.put(draw(ctx, shape, dtype, 0, 9), dtype=dtype), warm=False)
        aval = seen[0]
    ctx.check(
        tuple(aval.shape) == shape and np.dtype(aval.dtype) == want_dtype,
        f"aval {aval}, not {dtype}{list(shape)}",
        "type",
    )
    ctx.check(not getattr(aval, "weak_type", False), f"aval {aval} is weakly typed", "type")


# The study's other kinds of paths: the documented error for a value that is not a JAX type
# (exact type and message), and the avals of transformed values: inside jax.vmap the
# per-example shape, inside grad of grad the primal's shape and dtype. New names; the cases
# above keep their ids.
@case("error-not-a-jax-type")
def get_aval_error(ctx):
    from _jaxhelp import check_raises

    get_aval = ctx.require("jax._src.core.get_aval")
    check_raises(ctx, lambda: get_aval("x"), TypeError, r"is not a valid JAX type")


@sweep("vmap-{mode}-sweep", mode=MODES)
def get_aval_vmap(ctx, mode):
    import jax

    get_aval = ctx.require("jax._src.core.get_aval")
    seen = []

    def f(v):
        seen.append(get_aval(v))
        return v * 2

    ctx.measure(
        ctx.in_mode(mode, jax.vmap(f)), ctx.put(np.ones((7, 3, 2), dtype="float32")), warm=False
    )
    ctx.check(
        tuple(seen[0].shape) == (3, 2) and str(seen[0].dtype) == "float32",
        f"per-example aval {seen[0]}",
        "other",
    )


@sweep("grad2-{mode}-sweep", mode=MODES)
def get_aval_grad2(ctx, mode):
    import jax
    import jax.numpy as jnp

    get_aval = ctx.require("jax._src.core.get_aval")
    seen = []

    def f(v):
        seen.append(get_aval(v))
        return jnp.sum(v**3)

    x = ctx.put(np.arange(4, dtype="float64"))
    out = ctx.measure(ctx.in_mode(mode, jax.grad(lambda v: jnp.sum(jax.grad(f)(v)))), x, warm=False)
    ctx.check_close(out, 6 * np.arange(4.0), dtype="float64")
    ctx.check(
        all(tuple(a.shape) == (4,) and str(a.dtype) == "float64" for a in seen),
        f"avals {seen}",
        "other",
    )
