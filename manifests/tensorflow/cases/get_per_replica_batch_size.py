"""tf.distribute.InputContext.get_per_replica_batch_size: global batch split across replicas."""

from tfhelp import raises

from portbench_runner.api import case, sweep


@case("eight-replicas", replicas=8, batch=64, expect=8)
@case("one-replica", replicas=1, batch=33, expect=33)
@case("three-replicas", replicas=3, batch=96, expect=32)
def divisible(ctx, replicas, batch, expect):
    import tensorflow as tf

    context = tf.distribute.InputContext(
        num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=replicas
    )
    out = ctx.measure(context.get_per_replica_batch_size, batch)
    ctx.check(out == expect, f"{batch} over {replicas} replicas gave {out}", "other")


@case("indivisible-raises")
def indivisible(ctx):
    import tensorflow as tf

    context = tf.distribute.InputContext(num_replicas_in_sync=4)
    out = ctx.measure(raises(lambda: context.get_per_replica_batch_size(10), ValueError))
    ctx.check(out == "ValueError", f"10 over 4 replicas raised {out}", "other")


@case("pipelines-do-not-change-split")
def pipelines(ctx):
    import tensorflow as tf

    context = tf.distribute.InputContext(
        num_input_pipelines=2, input_pipeline_id=1, num_replicas_in_sync=4
    )
    out = ctx.measure(context.get_per_replica_batch_size, 128)
    ctx.check(out == 32 and context.input_pipeline_id == 1, f"got {out}", "other")


# The global batch size in each form callers pass it (a Python int, a NumPy integer, an
# eager int32 tensor; a graph tensor is refused: the divisibility check is a Python if),
# over replica counts from 1 to 32; the split is exact. New names.
@sweep(
    "{form}-replicas{replicas}-sweep", form=["int", "numpy", "tensor"], replicas=[1, 2, 3, 4, 8, 32]
)
def forms(ctx, form, replicas):
    import numpy as np
    import tensorflow as tf

    context = tf.distribute.InputContext(num_replicas_in_sync=replicas)
    batch = 96 * replicas
    value = {"int": batch, "numpy": np.int64(batch), "tensor": ctx.put(np.int32(batch))}[form]
    out = ctx.measure(context.get_per_replica_batch_size, value)
    ctx.check(int(out) == 96, f"{batch} over {replicas} replicas gave {out}", "other")
    ctx.check(
        isinstance(out, (int, np.integer)) or out.dtype == tf.int32,
        f"the split of a {form} is a {type(out).__name__}",
        "type",
    )


@case("zero-batch")
def zero(ctx):
    import tensorflow as tf

    context = tf.distribute.InputContext(num_replicas_in_sync=4)
    out = ctx.measure(context.get_per_replica_batch_size, 0)
    ctx.check(out == 0, f"0 over 4 replicas gave {out}", "other")


# The study's other kind of path here: the documented error for a global batch the replicas
# do not divide (exact type and message). New name; the cases above keep their ids.
@case("error-indivisible")
def per_replica_error(ctx):
    import tensorflow as tf
    from tfhelp import check_raises

    context = tf.distribute.InputContext(
        num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=3
    )
    check_raises(
        ctx,
        lambda: context.get_per_replica_batch_size(10),
        ValueError,
        r"The `global_batch_size` 10 is not divisible by `num_replicas_in_sync` 3",
    )
