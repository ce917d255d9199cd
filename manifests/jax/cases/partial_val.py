"""jax._src.interpreters.partial_eval.PartialVal (private): known and unknown partial values."""

import numpy as np

from portbench_runner.api import case


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
