"""The three commands end to end on a small corpus: folder, zip and tar give one answer."""

from __future__ import annotations

import json
import re
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

from portbench.cli import main
from portbench.errors import ManifestError, UsageError
from portbench.manifest import load_manifest
from portbench.sampling.corpus import open_corpus
from portbench.sampling.provenance import portbench_identity

FILES = {
    "pkg/model.py": "import torch\nimport torch.nn as nn\nx = nn.Linear(1, 2)\ny = torch.cat([x])\n",
    "pkg/train.py": "from torch import nn\nm = nn.Linear(2, 3)\nprint 'py2'\n",
    "pkg/other.py": "import numpy as np\nnp.cat([1])\n",
    "pkg/notes.txt": "import torch\ntorch.cat()\n",
}
NAMES = ["torch.nn.Linear", "torch.cat", "torch.zeros", "torch.nn.ReLU"]


@pytest.fixture
def enumeration(tmp_path: Path) -> Path:
    path = tmp_path / "enum.json"
    rows = [{"name": n, "kind": "function", "module": "torch", "aliases": []} for n in NAMES]
    doc = {
        "schema": 1,
        "kind": "enumeration",
        "framework": "torch",
        "version": "9.9",
        "names": rows,
    }
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture
def corpora(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "corpus"
    for name, text in FILES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    with zipfile.ZipFile(tmp_path / "corpus.whl", "w") as archive:
        for name, text in sorted(FILES.items()):
            archive.writestr(name, text)
    with tarfile.open(tmp_path / "corpus.tar.gz", "w:gz") as archive:
        for name in sorted(FILES):
            archive.add(folder / name, arcname=name)
    return {"dir": folder, "zip": tmp_path / "corpus.whl", "tar": tmp_path / "corpus.tar.gz"}


def _frequency(enumeration: Path, corpus: Path, out: Path) -> dict[str, object]:
    code = main(
        ["frequency", "--corpus", str(corpus), "--enumeration", str(enumeration), "--out", str(out)]
    )
    assert code == 0
    return dict(json.loads(out.read_text()))


def test_folder_zip_and_tar_count_the_same(
    enumeration: Path, corpora: dict[str, Path], tmp_path: Path
) -> None:
    docs = {
        kind: _frequency(enumeration, path, tmp_path / f"{kind}.json")
        for kind, path in corpora.items()
    }
    for doc in docs.values():
        assert doc["counts"] == {
            "bytes_read": sum(len(t) for n, t in FILES.items() if n.endswith(".py")),
            "files_ast": 1,
            "files_matched": 2,
            "files_read": 3,
            "files_tokenize": 1,
        }
        uses = {row["name"]: row["uses"] for row in doc["names"]}  # type: ignore[attr-defined]
        assert uses == {"torch.nn.Linear": 2, "torch.cat": 1, "torch.zeros": 0, "torch.nn.ReLU": 0}
    hashes = {doc["corpus"]["sha256"] for doc in docs.values()}  # type: ignore[index]
    assert len(hashes) == 1
    assert "archive_sha256" in docs["zip"]["corpus"]  # type: ignore[operator]


def test_sample_writes_a_parseable_skeleton_with_provenance(
    enumeration: Path, corpora: dict[str, Path], tmp_path: Path
) -> None:
    freq = tmp_path / "freq.json"
    _frequency(enumeration, corpora["dir"], freq)
    out = tmp_path / "skeleton.toml"
    args = ["sample", "--framework", "torch", "--frequency", str(freq), "--seed", "7"]
    # Two ranked names fill the top and one decile: the other nine are short, by consent.
    small = ["--top", "1", "--per-decile", "1", "--allow-short"]
    assert main([*args, *small, "--out", str(out)]) == 0
    data = tomllib.loads(out.read_text())
    assert (data["schema"], data["framework"]) == (1, "torch")
    assert [
        (f["function"], f["stratum"], f["frequency"], f["frequency_rank"]) for f in data["function"]
    ] == [
        ("torch.nn.Linear", "top1", 2, 1),
        ("torch.cat", "5", 1, 2),  # rank 2 of 2: decile 10 - 1 * 10 // 2
    ]
    provenance = data["provenance"]
    assert (provenance["sampled"], provenance["asked"], provenance["short"]) == (2, 11, True)
    assert [(s["stratum"], s["got"]) for s in provenance["strata"]][:2] == [("top1", 1), ("10", 0)]
    assert provenance["seed"] == 7
    assert provenance["corpus"] == str(corpora["dir"])
    assert len(provenance["corpus_sha256"]) == 64
    assert provenance["enumeration_file"] == str(enumeration)
    assert provenance["framework_version"] == "9.9"
    assert provenance["portbench_version"] == portbench_identity()["version"]
    assert provenance.get("portbench_commit") == portbench_identity()["commit"]
    assert "enumeration_profile" not in provenance  # the fixture predates cell provenance
    assert main([*args, *small, "--out", str(out)]) == 2  # never overwritten
    _curated_skeleton_loads_with_its_provenance(out, tmp_path, provenance)


def _curated_skeleton_loads_with_its_provenance(
    skeleton: Path, tmp_path: Path, provenance: dict[str, object]
) -> None:
    """What a curator does next: give each entry its test file and case file; the manifest
    loader then takes the skeleton as it is, [provenance] included."""
    folder = tmp_path / "manifests" / "torch"
    (folder / "cases").mkdir(parents=True)
    text = skeleton.read_text()
    for i, name in enumerate(("linear", "cat")):
        (folder / "cases" / f"{name}.py").write_text(
            f"from portbench_runner.api import case\n\n@case('c{i}')\ndef c(ctx):\n    pass\n"
        )
    curated = text.replace(
        'function = "torch.nn.Linear"',
        'function = "torch.nn.Linear"\nstudy_test_file = "linear_test.py"\n'
        'case_file = "cases/linear.py"',
    ).replace(
        'function = "torch.cat"',
        'function = "torch.cat"\nstudy_test_file = "cat_test.py"\ncase_file = "cases/cat.py"',
    )
    (folder / "manifest.toml").write_text(curated)
    manifest = load_manifest("torch", tmp_path / "manifests")
    assert [f.function for f in manifest.functions] == ["torch.nn.Linear", "torch.cat"]
    assert manifest.provenance == provenance
    (folder / "manifest.toml").write_text("extra = 1\n" + curated)
    with pytest.raises(ManifestError, match="unknown top-level key"):
        load_manifest("torch", tmp_path / "manifests")
    # [provenance] is validated as a table, not merely tolerated.
    not_a_table = re.sub(
        r"\[provenance\]\n.*?\n\n(?=\[\[function\]\])",
        'provenance = "by hand"\n\n',
        curated,
        count=1,
        flags=re.S,
    )
    (folder / "manifest.toml").write_text(not_a_table)
    with pytest.raises(ManifestError, match="'provenance' must be a table"):
        load_manifest("torch", tmp_path / "manifests")


def test_sample_records_replacements(tmp_path: Path) -> None:
    freq = tmp_path / "freq.json"
    names = [
        {"name": f"fw.n{i:03d}", "kind": "function", "uses": i, "identifier_uses": i}
        for i in range(1, 201)
    ]
    doc = {
        "schema": 1,
        "kind": "frequency",
        "framework": "fw",
        "corpus": {},
        "enumeration": {},
        "names": names,
    }
    freq.write_text(json.dumps(doc))
    first, second = tmp_path / "a.toml", tmp_path / "b.toml"
    args = ["sample", "--framework", "fw", "--frequency", str(freq), "--seed", "3"]
    # 200 names: the top 20 are all of decile 10, so it is short (and known to be).
    args += ["--allow-short"]
    assert main([*args, "--out", str(first)]) == 0
    victim = tomllib.loads(first.read_text())["function"][25]
    assert (
        main(
            [
                *args,
                "--replace",
                victim["function"],
                "--reason",
                'no "upstream" test',
                "--out",
                str(second),
            ]
        )
        == 0
    )
    data = tomllib.loads(second.read_text())
    (record,) = data["provenance"]["replaced"]
    assert record["function"] == victim["function"]
    assert record["reason"] == 'no "upstream" test'
    new = next(f for f in data["function"] if f["function"] == record["replaced_by"])
    assert new["stratum"] == victim["stratum"] == record["stratum"]
    assert new["notes"] == f'replaces {victim["function"]}: no "upstream" test'


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--replace", "fw.x"], "one --reason for each --replace"),
        (["--framework", "jax"], "not 'jax'"),
    ],
)
def test_bad_sample_options_are_one_sentence(
    enumeration: Path,
    corpora: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    freq = tmp_path / "freq.json"
    _frequency(enumeration, corpora["dir"], freq)
    capsys.readouterr()
    args = ["sample", "--framework", "torch", "--frequency", str(freq), "--seed", "1"]
    assert main([*args, *extra, "--out", str(tmp_path / "s.toml")]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_a_corpus_too_small_for_its_strata_is_refused_with_the_counts(
    enumeration: Path,
    corpora: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    freq = tmp_path / "freq.json"
    _frequency(enumeration, corpora["dir"], freq)
    capsys.readouterr()
    out = tmp_path / "skeleton.toml"
    args = ["sample", "--framework", "torch", "--frequency", str(freq), "--seed", "7"]
    assert main([*args, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    # Two names ranked (Linear 2 uses, cat 1): the default top 20 takes both, no decile gets any.
    strata = "top20 2/20, 10 0/5, 9 0/5, 8 0/5, 7 0/5, 6 0/5, 5 0/5, 4 0/5, 3 0/5, 2 0/5, 1 0/5"
    assert f"strata (got of asked): {strata}" in captured.out
    assert (
        "the sample holds 2 of the 70 names asked (top20 got 2 of 20, 10 got 0 of 5" in captured.err
    )
    assert "2 ranked in all" in captured.err
    assert "--allow-short" in captured.err
    assert "Traceback" not in captured.err
    assert not out.exists()
    assert main([*args, "--allow-short", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "warning: the sample holds 2 of the 70 names asked" in captured.err
    assert "2 of 70 functions asked" in captured.out
    assert tomllib.loads(out.read_text())["provenance"]["short"] is True


def test_dataset_names_need_the_datasets_library(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)  # import datasets -> ImportError
    corpus = open_corpus("codeparrot/codeparrot-clean")
    assert corpus.kind == "dataset"
    with pytest.raises(UsageError, match=r"pip install 'portbench\[corpus\]'"):
        next(corpus.files())


def test_unknown_corpus_paths_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such folder or archive"):
        open_corpus(str(tmp_path / "missing"))
    odd = tmp_path / "corpus.rar"
    odd.write_bytes(b"x")
    with pytest.raises(UsageError, match="unknown corpus file type"):
        open_corpus(str(odd))


def test_the_top_using_up_a_decile_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """200 ranked names: decile 10 is exactly the 20 most used, all taken by the top 20."""
    freq = tmp_path / "freq.json"
    names = [
        {"name": f"fw.n{i:03d}", "kind": "function", "uses": i, "identifier_uses": i}
        for i in range(1, 201)
    ]
    doc = {"schema": 1, "kind": "frequency", "framework": "fw", "corpus": {}, "enumeration": {}}
    freq.write_text(json.dumps({**doc, "names": names}))
    args = ["sample", "--framework", "fw", "--frequency", str(freq), "--seed", "3"]
    assert main([*args, "--out", str(tmp_path / "s.toml")]) == 2
    captured = capsys.readouterr()
    assert "top20 20/20, 10 0/5, 9 5/5" in captured.out
    assert "65 of the 70 names asked (10 got 0 of 5;" in captured.err
    # Asking for a top that leaves decile 10 five names gives the full sample.
    assert main([*args, "--top", "15", "--out", str(tmp_path / "s.toml")]) == 0
    assert "65 of 65 functions asked" in capsys.readouterr().out


def test_the_enumerations_cell_travels_to_the_frequency_and_the_skeleton(
    enumeration: Path, corpora: dict[str, Path], tmp_path: Path
) -> None:
    doc = json.loads(enumeration.read_text())
    cell = {
        "profile": "paper-nearest",
        "backend": "docker",
        "image": {"id": "sha256:b0b4", "tag": "portbench/jax-cpu:paper-nearest-b0b4"},
        "lock": "images/locks/paper-nearest/torch-cpu.txt",
        "lock_sha256": "ab" * 32,
    }
    doc["provenance"] = {"cell": cell}
    enumeration.write_text(json.dumps(doc))
    freq = tmp_path / "freq.json"
    written = _frequency(enumeration, corpora["dir"], freq)
    assert written["enumeration"]["cell"] == cell  # type: ignore[index]
    assert written["portbench"] == portbench_identity()
    out = tmp_path / "s.toml"
    args = ["sample", "--framework", "torch", "--frequency", str(freq), "--seed", "1"]
    assert main([*args, "--allow-short", "--out", str(out)]) == 0
    provenance = tomllib.loads(out.read_text())["provenance"]
    assert provenance["enumeration_profile"] == "paper-nearest"
    assert provenance["enumeration_image"] == "portbench/jax-cpu:paper-nearest-b0b4"
    assert provenance["enumeration_image_id"] == "sha256:b0b4"
    assert provenance["enumeration_lock_sha256"] == "ab" * 32
