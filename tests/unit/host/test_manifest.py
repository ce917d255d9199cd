"""Manifest and rules validation: every problem names the file, the entry and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from portbench.errors import ManifestError
from portbench.manifest import load_manifest, read_case_names
from portbench.rules import load_rules
from portbench_runner.contract import Rule

CASES = """
from portbench_runner.api import case

@case("a")
@case("b", dtype="float32")
def both(ctx, dtype="float64"):
    pass
"""

ENTRY = """
[[function]]
function = "demo.f"
study_test_file = "f_test.py"
stratum = "top20"
frequency = 3
case_file = "cases/f.py"
"""


def _write(root: Path, manifest: str, cases: str = CASES) -> Path:
    folder = root / "demo"
    (folder / "cases").mkdir(parents=True, exist_ok=True)
    (folder / "cases" / "f.py").write_text(cases)
    (folder / "manifest.toml").write_text(manifest)
    return root


def test_a_valid_manifest_lists_cases_read_from_decorators(tmp_path: Path) -> None:
    root = _write(tmp_path, 'schema = 1\nframework = "demo"\n' + ENTRY)
    manifest = load_manifest("demo", root)
    (entry,) = manifest.functions
    assert entry.cases == ("a", "b")
    assert manifest.case_ids() == ["demo.f::a", "demo.f::b"]
    assert len(entry.case_file_sha256) == 64


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ('schema = 2\nframework = "demo"\n' + ENTRY, "'schema' must be 1"),
        (
            'schema = 1\nframework = "demo"\n' + ENTRY.replace('"top20"', '"11"'),
            "unknown stratum '11'",
        ),
        ('schema = 1\nframework = "demo"\n' + ENTRY + "colour = 1\n", "unknown key 'colour'"),
        ('schema = 1\nframework = "demo"\n' + ENTRY + ENTRY, "listed twice"),
        (
            'schema = 1\nframework = "demo"\n' + ENTRY.replace("f.py", "g.py"),
            "case file cases/g.py does not exist",
        ),
        ('schema = 1\nframework = "demo"\n[[function]\n', "not valid TOML"),
        ('schema = 1\nframework = "demo"\n', "lists no [[function]]"),
    ],
)
def test_manifest_problems(tmp_path: Path, manifest: str, message: str) -> None:
    root = _write(tmp_path, manifest)
    with pytest.raises(
        ManifestError, match=message.replace("[", r"\[").replace("(", r"\(")
    ) as info:
        load_manifest("demo", root)
    assert "manifest.toml" in str(info.value)


def test_case_names_must_be_literal_unique_and_well_formed(tmp_path: Path) -> None:
    path = tmp_path / "c.py"
    path.write_text(
        "from portbench_runner.api import case\nNAME='x'\n@case(NAME)\ndef f(ctx): pass\n"
    )
    with pytest.raises(ManifestError, match="literal string name"):
        read_case_names(path)
    path.write_text(
        "from portbench_runner.api import case\n@case('a')\n@case('a')\ndef f(ctx): pass\n"
    )
    with pytest.raises(ManifestError, match="registered twice: a"):
        read_case_names(path)
    path.write_text("from portbench_runner.api import case\n@case('a b')\ndef f(ctx): pass\n")
    with pytest.raises(ManifestError, match="must match"):
        read_case_names(path)
    path.write_text("def broken(:\n")
    with pytest.raises(ManifestError, match="does not parse"):
        read_case_names(path)


def test_rules_are_validated(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "rules.toml").write_text('[[rule]]\nid = "x"\ncategory = "weird"\ntypes = ["E"]\n')
    with pytest.raises(ManifestError, match="category 'weird' is not one of"):
        load_rules("demo", tmp_path)
    (folder / "rules.toml").write_text('[[rule]]\nid = "x"\ncategory = "type"\nmessage = "("\n')
    with pytest.raises(ManifestError, match="not a valid regex"):
        load_rules("demo", tmp_path)
    (folder / "rules.toml").write_text(
        '[[rule]]\nid = "x"\ncategory = "type"\ntypes = ["E"]\nwhy = "doc"\n'
    )
    assert load_rules("demo", tmp_path) == [Rule("x", "type", ("E",))]


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ("absolute", "is an absolute path; move the file into"),
        ("dotdot", "climbs out of the manifest folder"),
        ("symlink", "goes through a symbolic link that leads out of the manifest folder"),
        ("linked_dir", "goes through a symbolic link that leads out of the manifest folder"),
    ],
)
def test_a_case_file_outside_the_manifest_folder_is_refused(
    tmp_path: Path, form: str, message: str
) -> None:
    # The outside file is a valid case file: only where it lies is wrong.
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "f.py").write_text(CASES)
    root = _write(tmp_path / "root", 'schema = 1\nframework = "demo"\n' + ENTRY)
    folder = root / "demo"
    case_file = {
        "absolute": str(outside / "f.py"),
        "dotdot": "../../elsewhere/f.py",
        "symlink": "cases/link.py",
        "linked_dir": "linked/f.py",
    }[form]
    (folder / "cases" / "link.py").symlink_to(outside / "f.py")
    (folder / "linked").symlink_to(outside, target_is_directory=True)
    (folder / "manifest.toml").write_text(
        'schema = 1\nframework = "demo"\n' + ENTRY.replace('"cases/f.py"', f'"{case_file}"')
    )
    with pytest.raises(ManifestError, match=message) as info:
        load_manifest("demo", root)
    text = str(info.value)
    assert "manifest.toml: function 'demo.f'" in text
    assert case_file in text
    assert text.count(";") == 1 and "\n" not in text  # one sentence: what is wrong; the fix


def test_a_link_that_stays_inside_the_manifest_folder_is_accepted(tmp_path: Path) -> None:
    root = _write(tmp_path, 'schema = 1\nframework = "demo"\n' + ENTRY)
    folder = root / "demo"
    (folder / "cases" / "link.py").symlink_to(folder / "cases" / "f.py")
    (folder / "manifest.toml").write_text(
        'schema = 1\nframework = "demo"\n' + ENTRY.replace("cases/f.py", "cases/link.py")
    )
    (entry,) = load_manifest("demo", root).functions
    assert entry.cases == ("a", "b")
