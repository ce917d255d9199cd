"""The enumeration rules, on a small fake framework written into a temporary folder."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import RUNNERS

from portbench.backends.base import PreparedEnvironment
from portbench.backends.venv import VenvBackend
from portbench.errors import CellFailed, ResultsError, UsageError
from portbench.sampling import enumerate as enumerate_module
from portbench.sampling.enumerate import load_enumeration, run_enumeration
from portbench.sampling.provenance import cell_identity, portbench_identity
from portbench_runner.contract import ImageRef

FAKE = {
    "fakefw/__init__.py": """
        import os
        from os.path import join
        from . import _impl
        from . import _impl as impl
        from . import nn, ops
        from ._impl import Tensor, helper, relu

        __version__ = "1.0"
        VERSION_CONSTANT = 3

        class _FakeNumpyDtype:
            itemsize = 4

        _FakeNumpyDtype.__module__ = "numpy.dtypes"

        class _ScalarMeta(type):
            pass

        # As jax.numpy.float32: a class made by a metaclass, holding a NumPy dtype.
        float32 = _ScalarMeta("float32", (object,), {"dtype": _FakeNumpyDtype()})
        # Made by a metaclass too, but no dtype: a class like any other.
        Registry = _ScalarMeta("Registry", (object,), {})

        def _private():
            pass

        def add(a, b):
            return a + b
        """,
    "fakefw/_impl.py": """
        class Tensor:
            def size(self):
                return 0

            def _hidden(self):
                return 1

        class Layer:
            def forward(self):
                return None

        def relu(x):
            return x

        def helper():
            return None

        def secret():
            return None
        """,
    "fakefw/nn/__init__.py": """
        from fakefw._impl import Layer, relu
        from . import functional

        class Linear(Layer):
            def extra(self):
                return None
        """,
    "fakefw/nn/functional.py": """
        from fakefw._impl import relu

        def softmax(x):
            return x
        """,
    "fakefw/extra.py": """
        def lonely():
            return None
        """,
    # A package whose subpackage points its __path__ back at its parent's folder, as Keras's
    # generated API trees do: importing by package would recurse forever.
    "fakefw/mirror/__init__.py": """
        DEPTH = 0
        """,
    "fakefw/mirror/again/__init__.py": """
        __path__ = [__file__.rsplit("/", 2)[0]]
        """,
    "fakefw/tests/__init__.py": """
        raise RuntimeError("test suites are never imported")
        """,
    "fakefw/ops.py": """
        from fakefw.nn import functional as F

        def matmul(a, b):
            return a
        """,
}


@pytest.fixture
def fake_root(tmp_path: Path) -> Path:
    for name, text in FAKE.items():
        path = tmp_path / "pkgs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path / "pkgs"


def _enumerate(fake_root: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "portbench_runner", "enumerate", "--framework", "fakefw"]
    return subprocess.run(
        [*command, "--out", str(out), *extra],
        env={"PYTHONPATH": f"{RUNNERS}:{fake_root}", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,  # a walk that never ends fails here instead of hanging the suite
    )


def _names(path: Path) -> dict[str, dict[str, object]]:
    return {row["name"]: row for row in json.loads(path.read_text())["names"]}


def test_public_paths_aliases_and_exclusions(fake_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "enum.json"
    done = _enumerate(fake_root, out)
    assert done.returncode == 0, done.stderr
    names = _names(out)
    assert set(names) == {
        "fakefw.Registry",
        "fakefw.Tensor",
        "fakefw.add",
        "fakefw.helper",
        "fakefw.relu",
        "fakefw.nn.Layer",
        "fakefw.nn.Linear",
        "fakefw.nn.functional.softmax",
        "fakefw.ops.matmul",
    }
    # One object, one name: the shortest path; the others are aliases.
    assert names["fakefw.relu"]["aliases"] == ["fakefw.nn.relu", "fakefw.nn.functional.relu"]
    assert names["fakefw.Tensor"]["kind"] == "class"
    assert names["fakefw.Tensor"]["module"] == "fakefw._impl"
    assert names["fakefw.add"]["kind"] == "function"


def test_document_carries_schema_version_and_skips(fake_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "enum.json"
    assert _enumerate(fake_root, out).returncode == 0
    doc = json.loads(out.read_text())
    assert (doc["schema"], doc["kind"], doc["framework"], doc["version"]) == (
        1,
        "enumeration",
        "fakefw",
        "1.0",
    )
    # os (foreign), impl (private module under a public name): not walked;
    # ops.F (torch.functional.F-like module alias): not walked there.
    assert doc["skipped"]["foreign_or_private_module"] == 2
    assert doc["skipped"]["module_alias"] == 1
    assert doc["skipped"]["foreign_object"] == 1  # os.path.join
    assert doc["skipped"]["not_callable"] >= 1  # VERSION_CONSTANT
    assert doc["skipped"]["dtype"] == 1  # float32: a scalar type, not a function or class
    assert doc["provenance"]["executable"] == sys.executable


def test_members_are_named_through_their_defining_class(fake_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "enum.json"
    assert _enumerate(fake_root, out, "--members").returncode == 0
    names = _names(out)
    methods = {n for n, row in names.items() if row["kind"] == "method"}
    assert methods == {"fakefw.Tensor.size", "fakefw.nn.Layer.forward", "fakefw.nn.Linear.extra"}
    assert names["fakefw.nn.Layer.forward"]["aliases"] == ["fakefw.nn.Linear.forward"]


def test_import_submodules_finds_modules_import_does_not_load(
    fake_root: Path, tmp_path: Path
) -> None:
    plain, imported = tmp_path / "plain.json", tmp_path / "imported.json"
    assert _enumerate(fake_root, plain).returncode == 0
    assert _enumerate(fake_root, imported, "--import-submodules").returncode == 0
    assert set(_names(imported)) - set(_names(plain)) == {"fakefw.extra.lonely"}
    doc = json.loads(imported.read_text())
    assert "submodule_import_failed" not in doc["skipped"]
    # The self-referential package was imported once, not followed down forever.
    assert doc["modules_walked"] < 12


def test_a_slow_or_broken_submodule_is_named_with_its_reason(
    fake_root: Path, tmp_path: Path
) -> None:
    # A module that blocks on import (TensorFlow's endless walk looked like this from the
    # outside) costs --import-timeout seconds, not the whole walk.
    (fake_root / "fakefw" / "slow.py").write_text("import time\ntime.sleep(60)\n")
    (fake_root / "fakefw" / "broken.py").write_text("import no_such_dependency\n")
    out = tmp_path / "enum.json"
    done = _enumerate(fake_root, out, "--import-submodules", "--import-timeout", "1")
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    assert doc["import_failures"] == {
        "fakefw.broken": "ModuleNotFoundError: No module named 'no_such_dependency'",
        "fakefw.slow": "timed out after 1 s",
    }
    assert doc["skipped"]["submodule_import_timed_out"] == 1
    assert doc["rules"]["import_timeout_s"] == 1.0
    assert "fakefw.extra.lonely" in _names(out)  # the rest of the walk went on


def test_existing_output_is_never_overwritten(fake_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "enum.json"
    out.write_text("keep")
    done = _enumerate(fake_root, out)
    assert done.returncode == 2
    assert "exists" in done.stderr
    assert out.read_text() == "keep"


def test_host_runs_the_walker_and_reads_it_back(
    fake_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(fake_root))
    out = run_enumeration("fakefw", "host", tmp_path / "enum.json", python=sys.executable)
    enumeration = load_enumeration(out)
    assert enumeration.framework == "fakefw"
    assert len(enumeration.names) == 9
    with pytest.raises(UsageError, match="exists"):
        run_enumeration("fakefw", "host", out, python=sys.executable)


def test_host_reports_a_missing_framework_in_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(CellFailed, match="cannot import nosuchfw") as caught:
        run_enumeration("nosuchfw", "host", tmp_path / "e.json", python=sys.executable)
    assert "\n" not in str(caught.value)


def test_reader_refuses_newer_schema_and_other_files(tmp_path: Path) -> None:
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({"schema": 2, "kind": "enumeration", "names": []}))
    with pytest.raises(ResultsError, match="upgrade portbench"):
        load_enumeration(newer)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"schema": 1, "kind": "frequency"}))
    with pytest.raises(UsageError, match="not an enumeration file"):
        load_enumeration(other)


def test_venv_backend_runs_the_walker_in_the_cells_interpreter(
    fake_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--backend venv`: the walker runs with the interpreter the venv backend prepared for
    the profile's CPU cell, seeing that venv's packages and not the host's PYTHONPATH
    (building a venv from a lock needs the network, so the build is replaced by a small
    venv whose site-packages holds the fake framework; backend choice and the run are real)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "fakefw.pth").write_text(f"{fake_root}\n")
    asked: list[tuple[str, str, str]] = []

    def prepare(
        self: VenvBackend, framework: str, flavor: str, profile: str
    ) -> PreparedEnvironment:
        asked.append((framework, flavor, profile))
        return PreparedEnvironment(backend="venv", description="venv test", python=str(python))

    monkeypatch.setattr(VenvBackend, "prepare", prepare)
    # A host PYTHONPATH must not leak into a pinned cell: this one would shadow the framework.
    shadow = tmp_path / "host-only" / "fakefw"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('the host PYTHONPATH leaked')\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "host-only"))
    out = run_enumeration("fakefw", "current", tmp_path / "enum.json", backend="venv")
    assert asked == [("fakefw", "cpu", "current")]
    doc = json.loads(out.read_text())
    assert doc["provenance"]["executable"] == str(python)
    assert len(doc["names"]) == 9


class _FakeContainerBackend:
    """Stands in for the docker backend: ``run_tool`` runs the walker with the run folder
    where the container would mount it, as the real one does."""

    name = "docker"

    def __init__(self, fake_root: Path, status: int = 0, plant_link: Path | None = None) -> None:
        self.fake_root = fake_root
        self.status = status
        self.plant_link = plant_link
        self.args: list[str] = []

    def prepare(self, framework: str, flavor: str, profile: str) -> PreparedEnvironment:
        image = ImageRef("sha256:f00d", "fake:tag")
        return PreparedEnvironment(backend="docker", description="container fake:tag", image=image)

    def run_tool(self, prepared: PreparedEnvironment, args: list[str], run_dir: Path) -> int:
        self.args = args
        local = [a.replace("/portbench/run", str(run_dir)) for a in args]
        done = _walk(self.fake_root, local)
        # The real backend keeps the container's output beside the folder, out of its reach.
        (run_dir.parent / f"{run_dir.name}.log").write_text(done.stderr or "error: boom\n")
        if self.plant_link is not None:
            # A hostile walker replaces its listing with a link to a host file.
            listing = run_dir / "enumeration.json"
            listing.unlink()
            listing.symlink_to(self.plant_link)
        return self.status or done.returncode


def _walk(fake_root: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "portbench_runner", *args],
        env={"PYTHONPATH": f"{RUNNERS}:{fake_root}", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_container_backend_gets_the_walk_and_its_output_comes_back(
    fake_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = _FakeContainerBackend(fake_root)
    monkeypatch.setattr(enumerate_module, "choose_backend", lambda *a, **k: fake)
    out = run_enumeration(
        "fakefw", "current", tmp_path / "enum.json", members=True, import_timeout_s=5
    )
    assert fake.args == [
        "enumerate",
        "--framework",
        "fakefw",
        "--out",
        "/portbench/run/enumeration.json",
        "--members",
        "--import-timeout",
        "5",
    ]
    enumeration = load_enumeration(out)
    assert enumeration.framework == "fakefw"
    # The host adds what only it knows: the cell (profile, image) and the portbench commit.
    assert enumeration.cell["profile"] == "current"
    assert enumeration.cell["backend"] == "docker"
    assert enumeration.cell["image"] == {"id": "sha256:f00d", "tag": "fake:tag"}
    assert enumeration.cell["lock"] is None  # no lock exists for a fake framework
    assert enumeration.provenance["portbench"] == portbench_identity()
    assert enumeration.provenance["tool"] == "portbench_runner.enumerate_api"  # walker's kept
    failing = _FakeContainerBackend(fake_root, status=3)
    monkeypatch.setattr(enumerate_module, "choose_backend", lambda *a, **k: failing)
    with pytest.raises(CellFailed, match="in container fake:tag failed") as caught:
        run_enumeration("fakefw", "current", tmp_path / "again.json")
    assert "\n" not in str(caught.value)


def test_a_listing_the_container_replaced_by_a_link_is_not_followed(
    fake_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "host-secret"
    secret.write_text("not for the report")
    linking = _FakeContainerBackend(fake_root, plant_link=secret)
    monkeypatch.setattr(enumerate_module, "choose_backend", lambda *a, **k: linking)
    with pytest.raises(CellFailed, match="failed"):
        run_enumeration("fakefw", "current", tmp_path / "linked.json")
    assert not (tmp_path / "linked.json").exists()


@pytest.mark.parametrize(
    ("extra", "sentence"),
    [
        (
            ["--profile", "current", "--python", sys.executable, "--backend", "docker"],
            "drop one of",
        ),
        (["--profile", "host", "--backend", "docker"], "host backend only"),
        (["--profile", "current", "--backend", "host"], "use --profile host"),
        (["--profile", "host", "--import-timeout", "-1"], "--import-timeout"),
    ],
)
def test_enumerate_refuses_contradictory_options_in_one_sentence(
    extra: list[str], sentence: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from portbench.cli import main

    out = tmp_path / "enum.json"
    assert main(["enumerate", "--framework", "fakefw", *extra, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert sentence in err
    assert "Traceback" not in err
    assert not out.exists()


def test_an_unknown_framework_is_named_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from portbench.cli import main

    out = tmp_path / "enum.json"
    assert main(["enumerate", "--framework", "mxnet", "--profile", "paper", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "unknown framework 'mxnet' (known: torch, tensorflow, jax" in err
    assert "lock" not in err
    assert not out.exists()


@pytest.mark.parametrize("content", ["schema = 1\nframework = 'torch'\n", "a,b\n1,2\n", ""])
def test_a_file_that_is_not_json_is_a_usage_error(
    content: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A manifest (TOML) passed as the enumeration is the user's mistake: exit 2, not 8."""
    from portbench.cli import main

    wrong = tmp_path / "manifest.toml"
    wrong.write_text(content)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    args = ["frequency", "--corpus", str(corpus), "--enumeration", str(wrong)]
    assert main([*args, "--out", str(tmp_path / "f.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert "not JSON, so not an enumeration file" in err
    assert "Traceback" not in err
    freq_args = ["sample", "--framework", "torch", "--frequency", str(wrong), "--seed", "1"]
    assert main([*freq_args, "--out", str(tmp_path / "s.toml")]) == 2
    assert "not JSON, so not a frequency file" in capsys.readouterr().err


def test_a_gzipped_enumeration_is_read_as_it_is(fake_root: Path, tmp_path: Path) -> None:
    import gzip

    out = tmp_path / "enum.json"
    assert _enumerate(fake_root, out).returncode == 0
    packed = tmp_path / "enum.json.gz"
    packed.write_bytes(gzip.compress(out.read_bytes()))
    assert load_enumeration(packed).names == load_enumeration(out).names


def test_a_pinned_cell_names_its_lock_and_portbench_its_commit() -> None:
    from portbench import __version__
    from portbench.paths import project_root

    prepared = PreparedEnvironment(
        backend="docker",
        description="image portbench/jax-cpu:paper-nearest-x",
        image=ImageRef("sha256:1", "portbench/jax-cpu:paper-nearest-x"),
    )
    cell = cell_identity("jax", "paper-nearest", prepared)
    lock = project_root() / "images" / "locks" / "paper-nearest" / "jax-cpu.txt"
    assert cell["lock"] == "images/locks/paper-nearest/jax-cpu.txt"
    assert cell["lock_sha256"] == hashlib.sha256(lock.read_bytes()).hexdigest()
    # An interpreter named by hand (--python) is not the lock's environment: no lock named.
    by_hand = PreparedEnvironment(backend="python", description="x", python=sys.executable)
    assert cell_identity("jax", "paper-nearest", by_hand)["lock"] is None
    identity = portbench_identity()
    assert identity["version"] == __version__
    head = subprocess.run(
        ["git", "-C", str(project_root()), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    if head.returncode == 0:
        assert identity["commit"] == head.stdout.strip()
        assert isinstance(identity["dirty"], bool)
    else:
        assert identity["commit"] is None
