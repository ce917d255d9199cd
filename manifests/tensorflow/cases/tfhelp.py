"""Helpers shared by the TensorFlow case files (not a case file: it registers no case).

``by_mode`` picks eager, ``tf.function`` (graph executor) or ``tf.function(jit_compile=True)``
(XLA); ``v1_graph``/``v1_session`` build a TF1 graph pinned to the case's device and a session
with soft placement off, so a TF1 case really executes its graph where the cell says.
"""

from __future__ import annotations

import contextlib

MODES = ("eager", "graph", "xla")


def by_mode(ctx, fn, mode):
    """``fn`` as run in ``mode``: ``eager`` (as is), ``graph`` (tf.function) or ``xla``."""
    if mode == "eager":
        return fn
    if mode == "graph":
        return ctx.graph(fn)
    if mode == "xla":
        return ctx.compiled(fn)
    raise ValueError(f"unknown mode {mode!r} (known: {', '.join(MODES)})")


@contextlib.contextmanager
def v1_graph(ctx):
    """A fresh ``tf.Graph`` as default, with new ops placed on the case's device."""
    import tensorflow as tf

    graph = tf.Graph()
    # A graph has its own device stack: the eager tf.device scope of the case does not reach it.
    with graph.as_default(), tf.device(ctx.device):
        yield graph


def v1_session(graph):
    """A ``tf.compat.v1.Session`` on ``graph`` that refuses to move ops off their device."""
    import tensorflow as tf

    v1 = tf.compat.v1
    return v1.Session(graph=graph, config=v1.ConfigProto(allow_soft_placement=False))


def bf16_round(ctx, x):
    """``x`` (float32 NumPy) rounded through bfloat16, as float64: the input a bf16 op sees."""
    return ctx.to_numpy(ctx.put(x, dtype="bfloat16")).astype("float64")


def raises(fn, *types):
    """A callable returning the name of the exception ``fn()`` raised among ``types``, or None."""

    def call():
        try:
            fn()
        except types as exc:
            return type(exc).__name__
        return None

    return call


class Box:
    """Holds a TF1 graph object (Variable, Tensor) so ``ctx.measure`` does not try to read it.

    ``measure`` synchronizes every output leaf with ``.numpy()``, which graph objects lack
    outside eager mode; a case that times graph construction returns its result boxed.
    """

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def boxed(fn):
    """``fn`` returning its result in a :class:`Box`."""
    return lambda *args, **kwargs: Box(fn(*args, **kwargs))
