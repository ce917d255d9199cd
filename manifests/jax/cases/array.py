"""jax.numpy.array: from lists, NumPy arrays (copied), nested sequences, dtypes, scalars."""

import numpy as np
from _jaxhelp import EVERY_DTYPE, GRAD_FLOATS, MODES, host_dtype, np_dtype

from portbench_runner.api import case, sweep


@case("from-list")
@case("from-nested-list", value=[[1.5, 2.5], [3.5, 4.5]])
@case("from-scalar", value=3.25)
@case("from-bools", value=[True, False, True])
def array_from_python(ctx, value=(1, 2, 3, 4)):
    import jax.numpy as jnp

    with ctx.on_device():
        out = ctx.measure(jnp.array, list(value) if isinstance(value, tuple) else value)
    ctx.check_equal(out, np.array(value))


@case("from-numpy-float32", dtype="float32")
@case("from-numpy-float64", dtype="float64")
@case("to-bfloat16", dtype="bfloat16")
@case("large", dtype="float32", n=1_000_000)
def array_from_numpy(ctx, dtype, n=4096):
    import jax.numpy as jnp

    x = ctx.rng.standard_normal(n).astype("float32" if dtype == "bfloat16" else dtype)
    with ctx.on_device():
        out = ctx.measure(jnp.array, x, dtype=getattr(jnp, dtype))
    ctx.check_close(out, x.astype("float64"), dtype=dtype)


@case("copy-is-independent")
def array_copies(ctx):
    import jax.numpy as jnp

    x = np.arange(6, dtype="float32")
    with ctx.on_device():
        out = ctx.measure(jnp.array, x, warm=False)
    x[0] = 100.0
    ctx.check(
        float(ctx.to_numpy(out)[0]) == 0.0,
        "jnp.array shares memory with the NumPy input",
        category="other",
    )


# Every dtype jnp.array converts to on the CPU, from a NumPy array of that dtype (bfloat16:
# from float32, rounded), eager and inside jax.jit; the values must arrive unchanged; new
# names, so the cases above keep their ids.
@sweep("{dtype}-{mode}-sweep", dtype=EVERY_DTYPE, mode=MODES)
def array_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import draw, out_dtype

    x = draw(ctx, (5, 7), dtype, -9, 9)
    if dtype == "bfloat16":
        x = np.round(x * 4) / 4  # exact in bfloat16: the conversion must not round
    with ctx.on_device():
        out = ctx.measure(ctx.in_mode(mode, lambda v: jnp.array(v, dtype=np_dtype(dtype))), x)
    ctx.check(out_dtype(ctx, out) == dtype, f"array(dtype={dtype}) gave {out.dtype}", "type")
    ctx.check_equal(np.asarray(ctx.to_numpy(out)), np.asarray(x).astype(host_dtype(dtype)))


# jnp.array is the identity for gradients: d/dx sum(array(x) * x) = 2x.
@sweep("grad-{dtype}-{mode}-sweep", dtype=GRAD_FLOATS, mode=MODES)
def array_grad_dtypes(ctx, dtype, mode):
    import jax.numpy as jnp
    from _jaxhelp import swept_grad

    swept_grad(ctx, lambda x: jnp.array(x) * x, lambda x: 2 * x, dtype, mode)


# The study's other kinds of paths for the array container: the documented errors for bad
# input (a ragged list, a string: exact type and message), index forms of the array it
# makes (basic slices, negative steps, Ellipsis and None, integer and boolean index arrays,
# the documented out-of-bounds rules: gathers clamp, .at[].get(mode="fill") fills,
# out-of-bounds updates are dropped), duplicate indices in scatters (.at[].add, .multiply,
# .min and .max combine every duplicate; .set keeps one of the duplicates' values, which
# one is unspecified), and the full grid of array's flags (copy x ndmin x dtype), eager and
# under jax.jit. New names; the cases above keep their ids.
@sweep("error-{form}", form=["ragged-list", "string-value"])
def array_errors(ctx, form):
    import jax.numpy as jnp
    from _jaxhelp import check_raises

    if form == "ragged-list":
        check_raises(
            ctx,
            lambda: jnp.array([[1, 2], [3]]),
            ValueError,
            r"setting an array element with a sequence",
        )
    else:
        check_raises(ctx, lambda: jnp.array("abc"), TypeError, r"is not a valid JAX array type")


INDEX_FORMS = [
    "basic-slice",
    "negative-step",
    "ellipsis-newaxis",
    "int-array",
    "negative-int-array",
    "bool-mask",
    "clamped-gather",
    "fill-gather",
    "slice-update",
    "dropped-update",
]


@sweep(
    "index-{form}-{mode}-sweep",
    form=INDEX_FORMS,
    mode=MODES,
    exclude=[{"form": "bool-mask", "mode": "jit"}],
)
def array_index_forms(ctx, form, mode):
    import jax.numpy as jnp

    x = np.arange(60, dtype="float32").reshape(3, 4, 5)
    idx = np.array([2, 0, 2])
    mask = x[:, :, 0] % 3 == 0

    def index(a):
        return {
            "basic-slice": lambda: a[1:, 1:3, ::2],
            "negative-step": lambda: a[::-1, -2:, ::-2],
            "ellipsis-newaxis": lambda: a[..., None, 1],
            "int-array": lambda: a[jnp.asarray(idx), 1],
            "negative-int-array": lambda: a[:, jnp.asarray([-1, -4])],
            "bool-mask": lambda: a[jnp.asarray(mask)],
            # JAX documents that out-of-bounds gather indices are clamped to the edge,
            "clamped-gather": lambda: a[jnp.asarray([0, 7])],
            # that .at[].get(mode="fill") fills them instead,
            "fill-gather": lambda: a.at[jnp.asarray([0, 7])].get(mode="fill", fill_value=-1.0),
            "slice-update": lambda: a.at[1, ::2].set(-1.0),
            # and that out-of-bounds updates are dropped.
            "dropped-update": lambda: a.at[jnp.asarray([1, 9])].set(-1.0),
        }[form]()

    with ctx.on_device():
        arr = ctx.put(x)
    out = ctx.measure(ctx.in_mode(mode, index), arr)
    expected = {
        "basic-slice": lambda: x[1:, 1:3, ::2],
        "negative-step": lambda: x[::-1, -2:, ::-2],
        "ellipsis-newaxis": lambda: x[..., None, 1],
        "int-array": lambda: x[idx, 1],
        "negative-int-array": lambda: x[:, [-1, -4]],
        "bool-mask": lambda: x[mask],
        "clamped-gather": lambda: x[[0, 2]],
        "fill-gather": lambda: np.stack([x[0], np.full((4, 5), -1.0)]),
        "slice-update": lambda: np.where(
            np.arange(4)[None, :, None] % 2 == 0,
            np.where(np.arange(3)[:, None, None] == 1, -1.0, x),
            x,
        ),
        "dropped-update": lambda: np.where(np.arange(3)[:, None, None] == 1, -1.0, x),
    }[form]()
    ctx.check_equal(out, expected.astype("float32"))


@sweep("duplicate-{op}-{mode}-sweep", op=["add", "multiply", "min", "max", "set"], mode=MODES)
def array_duplicates(ctx, op, mode):
    import jax.numpy as jnp

    base = np.arange(1.0, 7.0, dtype="float32")
    idx = np.array([1, 4, 1, 1, 4, 0])
    upd = np.array([2.0, -3.0, 5.0, 0.5, 4.0, 10.0], dtype="float32")

    def scatter(a, u):
        at = a.at[jnp.asarray(idx)]
        return getattr(at, op)(u)

    out = np.asarray(
        ctx.to_numpy(ctx.measure(ctx.in_mode(mode, scatter), ctx.put(base), ctx.put(upd)))
    )
    if op == "set":
        # Which duplicate wins is unspecified: each target holds one of its updates.
        for target in np.unique(idx):
            ctx.check(
                out[target] in set(upd[idx == target].tolist()),
                f"index {target} holds {out[target]}, none of its updates",
                "other",
            )
        untouched = np.setdiff1d(np.arange(6), idx)
        ctx.check_equal(out[untouched], base[untouched])
        return
    expected = base.astype("float64").copy()
    ufunc = {"add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}[op]
    ufunc.at(expected, idx, upd.astype("float64"))
    ctx.check_close(out, expected, dtype="float32")


@sweep(
    "flags-{copy}-ndmin{ndmin}-{dtype}-sweep",
    copy=["copy", "no-copy"],
    ndmin=[0, 3],
    dtype=["inferred", "float64"],
)
def array_flags(ctx, copy, ndmin, dtype):
    import jax.numpy as jnp

    x = np.arange(6, dtype="int32").reshape(2, 3)
    kw = {"copy": copy == "copy", "ndmin": ndmin}
    if dtype == "float64":
        kw["dtype"] = jnp.float64
    with ctx.on_device():
        out = ctx.measure(jnp.array, x, **kw)
    expected = np.array(x, ndmin=ndmin, dtype=None if dtype == "inferred" else "float64")
    ctx.check(
        str(out.dtype) == str(expected.dtype), f"dtype {out.dtype}, not {expected.dtype}", "type"
    )
    ctx.check_equal(out, expected)
    if copy == "copy":
        # copy=True promises a copy: a later change of the NumPy input must not show.
        x[0, 0] = 99
        ctx.check(
            float(np.asarray(ctx.to_numpy(out)).ravel()[0]) == 0.0,
            "a copy=True array follows a later change of its NumPy input",
            "other",
        )
