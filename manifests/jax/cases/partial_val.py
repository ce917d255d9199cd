"""jax._src.interpreters.partial_eval.PartialVal (private): known and unknown partial values."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, np_dtype

from portbench_runner.api import case, sweep


@case("known-value")
def partial_val_known(ctx):
    pe = ctx.require("jax._src.interpreters.partial_eval")
    pv = ctx.measure(pe.PartialVal.known, ctx.put(np.arange(3.0)))
    ctx.check(pv.is_known(), "a known PartialVal says it is unknown")
    ctx.check_equal(pv.get_known(), [0.0, 1.0, 2.0])


@case("unknown-aval")
def partial_val_unknown(ctx):
    import jax

    pe = ctx.require("jax._src.interpreters.partial_eval")
    aval = (
        jax.core.ShapedArray((4,), np.float32)
        if hasattr(jax.core, "ShapedArray")
        else ctx.require("jax._src.core.ShapedArray")((4,), np.float32)
    )
    pv = ctx.measure(pe.PartialVal.unknown, aval)
    ctx.check(not pv.is_known(), "an unknown PartialVal says it is known")
    ctx.check(tuple(pv.get_aval().shape) == (4,), f"aval {pv.get_aval()}")


@case("known-aval-matches-value")
def partial_val_aval(ctx):
    pe = ctx.require("jax._src.interpreters.partial_eval")
    pv = pe.PartialVal.known(ctx.put(np.zeros((2, 3), dtype="float32")))
    aval = ctx.measure(pv.get_aval)
    ctx.check(tuple(aval.shape) == (2, 3) and str(aval.dtype) == "float32", f"aval {aval}")


# PartialVal known (a device array) and unknown (an abstract array) in every dtype: known
# ones give back their value and its aval, unknown ones their aval; new names, so the cases
# above keep their ids.
@sweep("{dtype}-{form}-sweep", dtype=EVERY_DTYPE, form=("known", "unknown"))
def partial_val_dtypes(ctx, dtype, form):
    from _jaxhelp import draw, placed

    pe = ctx.require("jax._src.interpreters.partial_eval")
    want_dtype = np_dtype(dtype)
    if form == "known":
        x, exact = placed(ctx, draw(ctx, (2, 3), dtype, 0, 9), dtype)
        pv = ctx.measure(pe.PartialVal.known, x)
        ctx.check(pv.is_known(), "a known PartialVal says it is unknown", "other")
        ctx.check_equal(
            np.asarray(ctx.to_numpy(pv.get_known())),
            exact.astype(np.asarray(ctx.to_numpy(x)).dtype),
        )
    else:
        shaped = ctx.require("jax._src.core.ShapedArray")
        pv = ctx.measure(pe.PartialVal.unknown, shaped((2, 3), want_dtype))
        ctx.check(not pv.is_known(), "an unknown PartialVal says it is known", "other")
    aval = pv.get_aval()
    ctx.check(
        tuple(aval.shape) == (2, 3) and np.dtype(aval.dtype) == want_dtype,
        f"aval {aval}, not {dtype}[2, 3]",
        "type",
    )


# The study's other kind of path here: index forms of the container (a PartialVal is a
# 2-tuple (pval, const): indexing, negative indexing and unpacking agree with its methods,
# for a known and an unknown value). PartialVal checks nothing it is given (0.4.13 and
# 0.10.2 build one from any pair), so it has no error path. New names; the cases above keep
# their ids.
@sweep("index-{form}-sweep", form=["known", "unknown"])
def partial_val_index(ctx, form):
    pe = ctx.require("jax._src.interpreters.partial_eval")
    shaped = ctx.require("jax._src.core.ShapedArray")
    value = ctx.put(np.arange(6.0).reshape(2, 3))
    aval = shaped((2, 3), np.dtype("float32"))
    pv = (
        ctx.measure(pe.PartialVal.known, value)
        if form == "known"
        else ctx.measure(pe.PartialVal.unknown, aval)
    )
    first, second = pv
    ctx.check(
        len(pv) == 2 and pv[0] is first and pv[-1] is second,
        f"PartialVal is not a 2-tuple: {pv!r}",
        "other",
    )
    if form == "known":
        ctx.check(pv[0] is None, f"a known PartialVal's pval is {pv[0]!r}", "other")
        ctx.check_equal(pv[1], ctx.to_numpy(pv.get_known()))
    else:
        ctx.check(pv[1] is None and pv[0] == pv.get_aval(), f"unknown PartialVal {pv!r}", "other")
