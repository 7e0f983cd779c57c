"""The throughput benchmarks, run from a clone (``python -m benchmarks.NAME``); not installed with the package.

- :mod:`benchmarks.aec_throughput`: the AEC envs under random legal play (steps and deals per second);
- :mod:`benchmarks.engine_throughput`: the batched engine beside the AEC envs and OpenSpiel's bridge;
  ``--against [REF]``: :mod:`benchmarks.engine_throughput_ratio`, the engine's guard by ratio to a
  pinned commit (exit 1 below 0.95x);
- :mod:`benchmarks.wrapper_throughput`: the Gymnasium single-agent wrapper against the raw AEC env;
- :mod:`benchmarks.training_throughput`: the trainer against the machine's limit, Stable-Baselines3 and RLlib.

docs/speed.md (*The benchmark scripts*) says what each prints and gives measured figures. Playing strength
is measured elsewhere: ``vint-eval`` and its frozen board sets (:mod:`vint_env.evaluation.bench_sets`).
"""
