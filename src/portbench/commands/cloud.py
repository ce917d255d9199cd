"""``portbench cloud render``: SkyPilot task files for the accelerators named."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console

from ..accelerators import get_accelerator
from ..cluster.skypilot import MODES, RenderRequest, render_tasks
from ..manifest import FRAMEWORKS
from ..profiles import DEFAULT_PROFILE, check_profile
from ..writable import require_writable

__all__ = ["register"]


def register(subparsers: Any) -> None:
    cloud = subparsers.add_parser("cloud", help="bring nodes up on a cloud (SkyPilot)")
    actions = cloud.add_subparsers(dest="cloud_command", metavar="ACTION", required=True)
    render = actions.add_parser("render", help="write one SkyPilot task file per accelerator")
    render.add_argument("--accelerators", nargs="+", required=True, metavar="ID")
    render.add_argument("--mode", choices=MODES, default="join", help="join the head, or bench")
    render.add_argument("--head", help="join: the Ray head's HOST:PORT on the private network")
    render.add_argument("--profile", default=DEFAULT_PROFILE)
    render.add_argument("--frameworks", nargs="+", default=list(FRAMEWORKS))
    render.add_argument("--cloud", help="pin the cloud (gcp, aws...); default: SkyPilot picks")
    render.add_argument("--bucket", help="bench: the bucket mounted at /results")
    render.add_argument(
        "--repo", required=True, help="the git URL the VMs clone portbench from (yours)"
    )
    render.add_argument("--ref", default="main", help="the branch or tag they check out")
    render.add_argument(
        "--ray-version", help="the Ray version of the head (default: the one installed here)"
    )
    render.add_argument("--out", type=Path, default=Path("sky"), help="folder for the files")
    render.set_defaults(func=_render)


def _ray_version(given: str | None) -> str:
    if given:
        return given
    try:
        import ray
    except ImportError:
        from ..errors import UsageError

        raise UsageError(
            "nodes must run the head's Ray version, and Ray is not installed here: pass "
            "--ray-version X.Y.Z or pip install 'portbench[ray]'"
        ) from None
    return str(ray.__version__)


def _render(args: argparse.Namespace) -> int:
    check_profile(args.profile, "", "")
    accelerators = [get_accelerator(a) for a in args.accelerators]
    request = RenderRequest(
        mode=args.mode,
        profile=args.profile,
        frameworks=tuple(args.frameworks),
        repo=args.repo,
        ref=args.ref,
        ray_version=_ray_version(args.ray_version),
        head=args.head,
        cloud=args.cloud,
        bucket=args.bucket,
    )
    require_writable(args.out, "pass --out with a folder you can write")
    console = Console()
    for path in render_tasks(accelerators, request, args.out):
        console.print(f"wrote {path}")
    console.print("launch each with `sky launch -c NAME FILE` (docs/cluster.md); untried from here")
    return 0
