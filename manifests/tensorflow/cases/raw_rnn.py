"""tf.compat.v1.nn.raw_rnn: a user loop_fn drives a cell over time; outputs match a NumPy recurrence.

The paper replaced this TF1-only function in its sample; the study's file stayed, so the row
is kept (replaced = true). The cell is a minimal tanh RNN written here, not a Keras cell.
"""

import numpy as np
from tfhelp import v1_graph, v1_session

from portbench_runner.api import case


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


def _run(ctx, dtype, steps, batch, lengths, units=5, feat=3):
    import tensorflow as tf

    x = ctx.rng.standard_normal((steps, batch, feat)).astype(dtype)
    w = (ctx.rng.standard_normal((feat, units)) * 0.5).astype(dtype)
    u = (ctx.rng.standard_normal((units, units)) * 0.5).astype(dtype)
    lengths = np.asarray(lengths, dtype="int32")
    with v1_graph(ctx) as graph:
        cell = TanhCell(tf.constant(w), tf.constant(u))
        inputs = tf.TensorArray(getattr(tf, dtype), size=steps).unstack(tf.constant(x))
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
