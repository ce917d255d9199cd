"""jax.numpy.einsum_path: contraction order for einsum; the path computes einsum's result."""

import numpy as np
from _jaxhelp import EVERY_DTYPE

from portbench_runner.api import case, sweep


def _steps(path):
    """The contraction steps of a path, with or without NumPy's 'einsum_path' header."""
    return [tuple(step) for step in path if not isinstance(step, str)]


@case("matrix-chain", subscripts="ij,jk,kl->il", shapes=((8, 32), (32, 4), (4, 64)))
@case("batched", subscripts="bij,bjk->bik", shapes=((5, 6, 7), (5, 7, 8)))
@case("outer-trace", subscripts="ii,j->j", shapes=((6, 6), (9,)))
def einsum_path_plan(ctx, subscripts, shapes):
    import jax.numpy as jnp

    operands = [ctx.rng.standard_normal(s).astype("float32") for s in shapes]
    placed = [ctx.put(o) for o in operands]
    path, _ = ctx.measure(jnp.einsum_path, subscripts, *placed, optimize="greedy")
    steps = _steps(path)
    ctx.check(all(isinstance(step, tuple) for step in steps), f"not a contraction path: {path}")
    ctx.check(
        len(steps) == len(shapes) - 1, f"{len(steps)} contractions for {len(shapes)} operands"
    )
    # The path must be a valid contraction order for these operands: NumPy follows it
    # and must reach einsum's result (einsum itself is not the function under test).
    ops64 = [o.astype("float64") for o in operands]
    followed = np.einsum(subscripts, *ops64, optimize=["einsum_path", *steps])
    ctx.check_close(followed, np.einsum(subscripts, *ops64), dtype="float64")


@case("optimal-matches-numpy-order")
def einsum_path_optimal(ctx):
    import jax.numpy as jnp

    a, b, c = (np.ones(s, dtype="float32") for s in ((10, 100), (100, 5), (5, 50)))
    path, _ = ctx.measure(
        jnp.einsum_path, "ij,jk,kl->il", ctx.put(a), ctx.put(b), ctx.put(c), optimize="optimal"
    )
    numpy_path, _ = np.einsum_path("ij,jk,kl->il", a, b, c, optimize="optimal")
    ctx.check(_steps(path) == _steps(numpy_path), f"path {path}, NumPy's optimal path {numpy_path}")


# einsum_path over operands of every dtype (the path depends on shapes only, so it must be
# float32's path), eager and on the tracers inside jax.jit (where the shapes are known
# too); new names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=("eager", "traced"))
def einsum_path_dtypes(ctx, dtype, mode):
    import jax
    import jax.numpy as jnp
    from _jaxhelp import draw, placed

    subscripts = "ij,jk,kl->il"
    shapes = ((6, 20), (20, 3), (3, 12))
    ops = [placed(ctx, draw(ctx, s, dtype, 0, 4), dtype)[0] for s in shapes]
    if mode == "traced":
        seen = []

        @jax.jit
        def plan(*operands):
            seen.append(jnp.einsum_path(subscripts, *operands, optimize="greedy")[0])
            return operands[0]

        ctx.measure(plan, *ops, warm=False)
        path = seen[0]
    else:
        path, _ = ctx.measure(jnp.einsum_path, subscripts, *ops, optimize="greedy")
    floats = [np.zeros(s, dtype="float32") for s in shapes]
    want, _ = jnp.einsum_path(subscripts, *floats, optimize="greedy")
    ctx.check(_steps(path) == _steps(want), f"path {path} for {dtype}, {want} for float32")


# The study's other kinds of paths: the documented errors for subscripts that do not match
# the operands (too few operands, sizes of one label that differ, an output label no input
# has: exact type and message). New names; the cases above keep their ids.
@sweep("error-{form}", form=["operand-count", "label-sizes", "unknown-output-label"])
def einsum_path_errors(ctx, form):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    x = ctx.put(np.ones((3, 4), dtype="float32"))
    call, pattern = {
        "operand-count": (
            lambda: jnp.einsum_path("ij,jk->ik", x),
            r"Number of einsum subscripts, 2, must be equal to the number of operands, 1",
        ),
        "label-sizes": (
            lambda: jnp.einsum_path("ij,jk->ik", x, x),
            r"Size of label 'j' for operand 1 \(4\) does not match previous terms \(3\)",
        ),
        "unknown-output-label": (
            lambda: jnp.einsum_path("ij->ik", x),
            r"Output character 'k' did not appear in the input",
        ),
    }[form]
    check_raises(ctx, call, ValueError, pattern)
