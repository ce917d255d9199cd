"""jax.disable_jit: inside the context, jitted functions run op by op (Python side effects
happen on every call, values stay concrete); outside, tracing resumes."""

import numpy as np

from portbench_runner.api import case


@case("python-runs-every-call")
def disable_jit_side_effects(ctx):
    import jax

    calls = []

    @jax.jit
    def f(x):
        calls.append(1)
        return x * 2

    x = ctx.put(np.float32(1.0))
    f(x)
    f(x)
    traced_calls = len(calls)

    def run_disabled():
        with jax.disable_jit():
            f(x)
            f(x)

    ctx.measure(run_disabled, warm=False)
    ctx.check(
        traced_calls == 1 and len(calls) == 3,
        f"python bodies ran {calls}; expected 1 traced + 2 eager",
    )


@case("values-are-concrete")
def disable_jit_concrete(ctx):
    import jax

    seen = []

    @jax.jit
    def f(x):
        seen.append(float(x.sum()))  # a tracer would refuse float()
        return x + 1

    def run():
        with jax.disable_jit():
            return f(ctx.put(np.arange(3, dtype="float32")))

    out = ctx.measure(run, warm=False)
    ctx.check_equal(out, [1.0, 2.0, 3.0])
    ctx.check(seen == [3.0], f"saw {seen}")


@case("same-results-as-jit")
def disable_jit_equivalent(ctx):
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda x: jnp.tanh(x) @ x.T)
    x = ctx.put(ctx.rng.standard_normal((32, 32)).astype("float32"))
    jitted = ctx.to_numpy(f(x))

    def eager():
        with jax.disable_jit():
            return f(x)

    ctx.check_close(ctx.measure(eager), jitted, dtype="float32", rtol=1e-4, atol=1e-4)
