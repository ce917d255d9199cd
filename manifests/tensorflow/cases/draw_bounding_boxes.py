"""tf.image.draw_bounding_boxes: box outlines at floor(coord * (size - 1)), color cycling, clipping.

Reference: the documented drawing rule written in NumPy (a one-pixel outline per box, boxes
clipped at the image border, colors used in turn).
"""

import numpy as np
from tfhelp import EAGER_GRAPH, by_mode

from portbench_runner.api import case, sweep


def _draw(images, boxes, colors):
    out = images.astype("float64").copy()
    _, height, width, depth = images.shape
    for b in range(images.shape[0]):
        for i, box in enumerate(boxes[b]):
            color = colors[i % len(colors)][:depth]
            r0, c0 = int(np.float32(box[0]) * (height - 1)), int(np.float32(box[1]) * (width - 1))
            r1, c1 = int(np.float32(box[2]) * (height - 1)), int(np.float32(box[3]) * (width - 1))
            if r0 > r1 or c0 > c1 or r0 >= height or r1 < 0 or c0 >= width or c1 < 0:
                continue
            rr0, rr1 = max(r0, 0), min(r1, height - 1)
            cc0, cc1 = max(c0, 0), min(c1, width - 1)
            if r0 >= 0:
                out[b, r0, cc0 : cc1 + 1] = color
            if r1 < height:
                out[b, r1, cc0 : cc1 + 1] = color
            if c0 >= 0:
                out[b, rr0 : rr1 + 1, c0] = color
            if c1 < width:
                out[b, rr0 : rr1 + 1, c1] = color
    return out


COLORS = [[1.0, 0.0, 0.0, 1.0], [0.0, 0.5, 1.0, 1.0]]


@case("float32-one-box", dtype="float32", boxes=[[[0.1, 0.2, 0.6, 0.9]]])
@case(
    "float32-two-boxes-cycle",
    dtype="float32",
    boxes=[[[0.0, 0.0, 0.5, 0.5], [0.4, 0.3, 1.0, 0.8], [0.2, 0.2, 0.3, 0.3]]],
)
@case("float32-clipped", dtype="float32", boxes=[[[-0.2, 0.5, 0.5, 1.3]]])
@case("float16-one-box", dtype="float16", boxes=[[[0.25, 0.25, 0.75, 0.75]]])
@case("float32-graph", dtype="float32", boxes=[[[0.1, 0.1, 0.9, 0.9]]], mode="graph")
@case(
    "float32-large",
    dtype="float32",
    boxes=[[[0.1, 0.1, 0.9, 0.9], [0.3, 0.0, 0.6, 1.0]]],
    size=1024,
)
def draw(ctx, dtype, boxes, mode="eager", size=20):
    import tensorflow as tf

    images = ctx.rng.uniform(0.0, 0.3, size=(len(boxes), size, size + 3, 3)).astype(dtype)
    box_arr = np.array(boxes, dtype="float32")
    colors = np.array(COLORS, dtype="float32")
    fn = by_mode(ctx, tf.image.draw_bounding_boxes, mode)
    out = ctx.measure(fn, ctx.put(images), ctx.put(box_arr), ctx.put(colors))
    expected = _draw(images, box_arr, colors.astype(dtype).astype("float64"))
    ctx.check_close(out, expected, dtype=dtype)


# The image dtypes DrawBoundingBoxes has CPU kernels for (float16 and float32; other
# dtypes are refused and the op has no XLA kernel), eager and in a tf.function, with two
# images and a box each, grey (depth 1) and RGBA (depth 4: colors cut to the depth; RGB is
# covered above); new names.
@sweep(
    "{dtype}-depth{depth}-{mode}-sweep",
    dtype=["float16", "float32"],
    depth=[1, 4],
    mode=EAGER_GRAPH,
)
def draw_dtypes(ctx, dtype, depth, mode):
    import tensorflow as tf
    from tfhelp import check_dtype

    images = ctx.rng.uniform(0.0, 0.3, size=(2, 9, 11, depth)).astype(dtype)
    # No corner lands on an integer pixel after rounding (0.9 * 10 is 9 in float32 but
    # 8.99... in float64, and TensorFlow versions differ in which they floor).
    boxes = np.array([[[0.15, 0.25, 0.7, 0.85]], [[0.0, 0.5, 1.0, 1.0]]], dtype="float32")
    colors = np.array(COLORS, dtype="float32")
    out = ctx.measure(
        by_mode(ctx, tf.image.draw_bounding_boxes, mode),
        ctx.put(images),
        ctx.put(boxes),
        ctx.put(colors),
    )
    check_dtype(ctx, out, dtype)
    ctx.check_close(out, _draw(images, boxes, colors.astype(dtype).astype("float64")), dtype=dtype)


@case("float32-no-boxes-unchanged")
def draw_none(ctx):
    import tensorflow as tf

    images = ctx.rng.uniform(0.0, 1.0, size=(1, 6, 6, 3)).astype("float32")
    boxes = np.zeros((1, 0, 4), dtype="float32")
    out = ctx.measure(
        tf.image.draw_bounding_boxes,
        ctx.put(images),
        ctx.put(boxes),
        ctx.put(np.array(COLORS, "float32")),
    )
    ctx.check_equal(out, images)


# The study's other kind of path here: the documented errors for bad arguments (images not
# of rank 4, boxes of three coordinates, a channel depth of 2: exact type and message). New
# names; the cases above keep their ids.
@sweep("error-{form}", form=["images-rank-3", "three-coordinates", "two-channels"])
def draw_errors(ctx, form):
    import tensorflow as tf
    from tfhelp import check_raises

    shape, boxes, pattern = {
        "images-rank-3": ((4, 4, 3), (1, 1, 4), r"The rank of the images should be 4"),
        "three-coordinates": (
            (1, 4, 4, 3),
            (1, 1, 3),
            r"The size of the third dimension of the box must be 4",
        ),
        "two-channels": (
            (1, 4, 4, 2),
            (1, 1, 4),
            r"Channel depth should be either 1 \(GRY\), 3 \(RGB\), or 4 \(RGBA\)",
        ),
    }[form]
    images = ctx.put(np.ones(shape, dtype="float32"))
    b = ctx.put(np.full(boxes, 0.5, dtype="float32"))
    colors = ctx.put(np.ones((1, 4), dtype="float32"))
    check_raises(
        ctx,
        lambda: tf.image.draw_bounding_boxes(images, b, colors),
        tf.errors.InvalidArgumentError,
        pattern,
    )
