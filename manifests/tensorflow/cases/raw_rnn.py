"""tf.compat.v1.nn.raw_rnn: a user loop_fn drives a cell over time; outputs match a NumPy recurrence.

The paper replaced this TF1-only function in its sample; the study's file stayed, so the row
is kept (replaced = true). The cell is a minimal tanh RNN written here, not a Keras cell.
"""

import numpy as np
from tfhelp import REAL_FLOATS, bf16_round, v1_graph, v1_session

from portbench_runner.api import case, sweep


class TanhCell:
    """h' = tanh(x W + h U): just what raw_rnn needs from a cell (sizes, zero_state, call)."""

    def __init__(self, w, u):
        self.w, self.u = w, u
        self.state_size = int(u.shape[0])
        self.output_size = int(u.shape[0])

    def zero_state(self, batch, dtype):
        import tensorflow as tf

        return tf.zeros([batch, self.state_size], dtype)

    def __call__(self, x, h, scope=None):
        import tensorflow as tf

        new = tf.tanh(tf.matmul(x, self.w) + tf.matmul(h, self.u))
        return new, new


def _reference(x, lengths, w, u):
    steps, batch, _ = x.shape
    h = np.zeros((batch, u.shape[0]))
    out = np.zeros((steps, batch, u.shape[0]))
    for t in range(steps):
        new = np.tanh(x[t] @ w + h @ u)
        alive = (t < lengths)[:, None]
        out[t] = np.where(alive, new, 0.0)
        h = np.where(alive, new, h)
    return out, h


def _run(ctx, dtype, steps, batch, lengths, units=5, feat=3, tol=None):
    import tensorflow as tf

    # bfloat16 has no NumPy dtype: draw in float32; the graph's constants round it, and the
    # reference starts from the same rounded values.
    host = "float32" if dtype == "bfloat16" else dtype
    x = ctx.rng.standard_normal((steps, batch, feat)).astype(host)
    w = (ctx.rng.standard_normal((feat, units)) * 0.5).astype(host)
    u = (ctx.rng.standard_normal((units, units)) * 0.5).astype(host)
    if dtype == "bfloat16":
        x, w, u = (bf16_round(ctx, a) for a in (x, w, u))
    lengths = np.asarray(lengths, dtype="int32")
    tdt = getattr(tf, dtype)
    with v1_graph(ctx) as graph:
        cell = TanhCell(tf.constant(w, tdt), tf.constant(u, tdt))
        inputs = tf.TensorArray(tdt, size=steps).unstack(tf.constant(x, tdt))
        seq_len = tf.constant(lengths)

        def loop_fn(time, cell_output, cell_state, loop_state):
            emit = cell_output  # None on the first call: raw_rnn then uses output_size
            state = (
                cell.zero_state(batch, getattr(tf, dtype)) if cell_output is None else cell_state
            )
            finished = time >= seq_len
            next_input = tf.cond(
                tf.reduce_all(finished),
                lambda: tf.zeros([batch, feat], getattr(tf, dtype)),
                lambda: inputs.read(tf.minimum(time, steps - 1)),
            )
            return finished, next_input, state, emit, None

        outputs_ta, final_state, _ = tf.compat.v1.nn.raw_rnn(cell, loop_fn)
        outputs = outputs_ta.stack()
    with v1_session(graph) as sess:
        out, state = ctx.measure(sess.run, (outputs, final_state))
    expected, expected_state = _reference(
        x.astype("float64"), lengths, w.astype("float64"), u.astype("float64")
    )
    if tol is None:
        tol = 1e-5 if dtype == "float32" else 1e-12
    ctx.check_close(out, expected[: out.shape[0]], rtol=tol, atol=tol, what="outputs")
    ctx.check_close(state, expected_state, rtol=tol, atol=tol, what="final state")


@case("float32-full-length")
def full(ctx):
    _run(ctx, "float32", steps=6, batch=4, lengths=[6, 6, 6, 6])


@case("float32-variable-lengths")
def variable(ctx):
    _run(ctx, "float32", steps=7, batch=3, lengths=[7, 2, 4])


@case("float64-long")
def long(ctx):
    _run(ctx, "float64", steps=100, batch=8, lengths=[100] * 8, units=16, feat=8)


# Every float dtype the cell's matmul and tanh take, with ragged lengths (finished rows keep
# their state and emit zeros); tolerances grow with the dtype's epsilon over 6 steps. New
# names, so the cases above keep their ids.
@sweep("{dtype}-variable-lengths-sweep", dtype=REAL_FLOATS)
def dtypes(ctx, dtype):
    tol = {"float16": 1e-2, "bfloat16": 6e-2, "float32": 1e-5, "float64": 1e-12}[dtype]
    _run(ctx, dtype, steps=6, batch=3, lengths=[6, 1, 4], tol=tol)


# loop_state carried through the loop (it counts the steps taken), an emit structure (a
# tuple: the output and its square), and the gradient of the summed outputs with respect
# to the recurrent weights (tf.gradients in the TF1 graph) against central differences of
# the float64 reference.
@sweep("form-{form}-sweep", form=["loop-state", "emit-structure", "gradient"])
def forms(ctx, form):
    import tensorflow as tf

    steps, batch, feat, units = 5, 2, 3, 4
    x = ctx.rng.standard_normal((steps, batch, feat))
    w = ctx.rng.standard_normal((feat, units)) * 0.5
    u = ctx.rng.standard_normal((units, units)) * 0.5
    lengths = np.array([5, 3], dtype="int32")
    with v1_graph(ctx) as graph:
        u_t = tf.constant(u)
        cell = TanhCell(tf.constant(w), u_t)
        inputs = tf.TensorArray(tf.float64, size=steps).unstack(tf.constant(x))

        def loop_fn(time, cell_output, cell_state, loop_state):
            first = cell_output is None
            state = cell.zero_state(batch, tf.float64) if first else cell_state
            if form == "emit-structure":
                emit = (
                    (tf.zeros([units], tf.float64), tf.zeros([units], tf.float64))
                    if first
                    else (cell_output, tf.square(cell_output))
                )
            else:
                emit = cell_output
            if form == "loop-state":
                loop_state = tf.constant(0, tf.int32) if first else loop_state + 1
            finished = time >= lengths
            next_input = tf.cond(
                tf.reduce_all(finished),
                lambda: tf.zeros([batch, feat], tf.float64),
                lambda: inputs.read(tf.minimum(time, steps - 1)),
            )
            return finished, next_input, state, emit, loop_state

        emit_ta, _final_state, final_loop = tf.compat.v1.nn.raw_rnn(cell, loop_fn)
        if form == "emit-structure":
            fetches = (emit_ta[0].stack(), emit_ta[1].stack())
        elif form == "loop-state":
            fetches = (emit_ta.stack(), final_loop)
        else:
            total = tf.reduce_sum(emit_ta.stack())
            fetches = (total, tf.gradients(total, u_t)[0])
    with v1_session(graph) as sess:
        first_out, second_out = ctx.measure(sess.run, fetches)
    expected, _ = _reference(x, lengths, w, u)
    if form == "emit-structure":
        ctx.check_close(first_out, expected[: first_out.shape[0]], dtype="float64", what="output")
        ctx.check_close(
            second_out, expected[: second_out.shape[0]] ** 2, dtype="float64", what="square"
        )
    elif form == "loop-state":
        ctx.check_close(first_out, expected[: first_out.shape[0]], dtype="float64")
        # loop_fn runs once before the first step and once after each of the 5 steps.
        ctx.check(int(second_out) == steps, f"loop_state counted {second_out}", "other")
    else:
        eps = 1e-6
        numeric = np.zeros_like(u)
        for i in np.ndindex(*u.shape):
            bump = np.zeros_like(u)
            bump[i] = eps
            up = _reference(x, lengths, w, u + bump)[0].sum()
            down = _reference(x, lengths, w, u - bump)[0].sum()
            numeric[i] = (up - down) / (2 * eps)
        ctx.check_close(first_out, expected.sum(), dtype="float64", what="sum of outputs")
        ctx.check_close(second_out, numeric, rtol=1e-6, atol=1e-7, what="d sum / d U")


# The study's other kind of path here: the documented error for a cell that is no RNNCell
# (exact type and message). New name; the cases above keep their ids.
@case("error-not-a-cell")
def raw_rnn_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    def build():
        with v1_graph(ctx):
            return tf.compat.v1.nn.raw_rnn(3, lambda *args: args)

    check_raises(ctx, build, TypeError, r"The argument 'cell' \(3\) is not an RNNCell")
