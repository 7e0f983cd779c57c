"""Train a few PPO updates on a CUDA GPU and check the first against the CPU's, for whoever has a GPU.

    python -m training.gpu_check                        # configs/smoke.yaml, the mlp and sparse networks
    python -m training.gpu_check --updates 5 --set num_envs=64

For each network the same run (``--config``, no evaluation, its seed) is built twice, ``device: cpu`` and
``device: cuda``.  Both collect their first rollout on the CPU from the same initial weights, so the rollout
is the same; the first update then runs on each device.  The script prints both updates' losses and the
largest difference between the two networks' weights after it, and fails (exit status 1) where a loss
(the total, policy, value and entropy figures; ``approx_kl`` is printed, not judged) differs by more than ``--loss-tolerance`` (relative) or a weight by more than ``--weight-tolerance``
(absolute): float sums in another order differ in their last bits, a wrong device path by far more.  Then it
trains ``--updates - 1`` more updates on each and prints the seconds of every update on both.

Without CUDA it says so and exits with status 2, having checked nothing.  The tolerances are a first guess:
no GPU was available to the project when this script was written (docs/training.md, *The device*).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOSSES = ("loss", "policy_loss", "value_loss", "entropy")
SHOWN = ("approx_kl",)      # printed, not judged: a mean of differences of nearly equal log-probabilities


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m training.gpu_check", description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default=str(ROOT / "configs" / "smoke.yaml"), help="run config (default: smoke)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config key (repeatable)")
    p.add_argument("--networks", nargs="+", default=["mlp", "sparse"], help="networks to check (default: both)")
    p.add_argument("--updates", type=int, default=3, help="updates on each device (default 3; the first is compared)")
    p.add_argument("--loss-tolerance", type=float, default=1e-3, help="relative, per loss figure (default 1e-3)")
    p.add_argument("--weight-tolerance", type=float, default=1e-4, help="absolute, per weight (default 1e-4)")
    return p


def trainer(config: str, overrides: list[str], network: str, device: str, run_dir: str):
    from vint_env.training.config import load_config
    from vint_env.training.trainer import Trainer
    cfg = load_config(config, [*overrides, f"network={network}", "eval_opponents=[]", f"device={device}"])
    return Trainer(cfg, run_dir)


def check(args, network: str) -> bool:
    import torch
    with tempfile.TemporaryDirectory() as tmp:
        cpu = trainer(args.config, args.overrides, network, "cpu", f"{tmp}/cpu")
        gpu = trainer(args.config, args.overrides, network, "cuda", f"{tmp}/cuda")
        seconds = {"cpu": [], "cuda": []}
        first = {}
        for name, t in (("cpu", cpu), ("cuda", gpu)):
            for _ in range(max(1, args.updates)):
                start = time.perf_counter()
                scalars = t.update_once()
                if name == "cuda":
                    torch.cuda.synchronize()
                seconds[name].append(time.perf_counter() - start)
                first.setdefault(name, (scalars, {k: v.detach().cpu().clone() for k, v in t.net.state_dict().items()}))
    (cpu_scalars, cpu_weights), (gpu_scalars, gpu_weights) = first["cpu"], first["cuda"]
    ok = True
    print(f"\n{network}: the first update on each device (same rollout)")
    print(f"  {'figure':<12} {'cpu':>16} {'cuda':>16} {'relative difference':>20}")
    for key in LOSSES + SHOWN:
        a, b = float(cpu_scalars[key]), float(gpu_scalars[key])
        rel = abs(a - b) / max(abs(a), 1e-12)
        bad = key in LOSSES and rel > args.loss_tolerance
        ok &= not bad
        print(f"  {key:<12} {a:>16.8g} {b:>16.8g} {rel:>20.3g}{'  > tolerance' if bad else ''}")
    diff = max(float((cpu_weights[k] - gpu_weights[k]).abs().max()) for k in cpu_weights)
    bad = diff > args.weight_tolerance
    ok &= not bad
    print(f"  largest weight difference after it: {diff:.3g}{'  > tolerance' if bad else ''}")
    print("  seconds per update (collection on the CPU, update on the device):")
    for name, s in seconds.items():
        print(f"    {name:<5} " + " ".join(f"{x:.2f}" for x in s))
    return ok


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        print(f"training.gpu_check: no CUDA device on this machine (torch {torch.__version__}, "
              f"{'built without CUDA' if torch.version.cuda is None else 'CUDA ' + torch.version.cuda + ', no GPU found'}); "
              f"nothing was checked", file=sys.stderr)
        return 2
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
    results = [check(args, network) for network in args.networks]
    print("\nall within tolerance" if all(results) else "\nsome figure is out of tolerance")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
