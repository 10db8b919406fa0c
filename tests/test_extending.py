"""docs/EXTENDING.md's recipes, run as written: each code block is installed where its
first line says (a package of its own on ``sys.path``, with the entry points of its
``pyproject.toml`` block in a ``dist-info`` folder), then the commands the recipe shows
are run; each recipe's "Files it touches" names exactly the files its blocks write."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import tomllib
from click.testing import CliRunner

from cws_bench.cli import cli

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "EXTENDING.md"


def recipe(heading: str) -> str:
    text = PAGE.read_text(encoding="utf-8")
    body = text.split(f"## {heading}\n", 1)[1]
    return body.split("\n## ", 1)[0]


def blocks(body: str, language: str) -> dict[str, str]:
    """A recipe's code blocks of a language by their first line's comment (the file)."""
    found = {}
    for code in re.findall(rf"```{language}\n(.*?)```", body, flags=re.S):
        first = code.splitlines()[0]
        assert first.startswith("# "), f"a {language} block must say where it goes: {first}"
        found[first[2:].split(",")[0].split("'")[0].strip()] = code
    return found


def touched(body: str) -> list[str]:
    """The files a recipe's last paragraph says it touches."""
    paragraph = body.split("Files it touches:", 1)[1].split("\n\n", 1)[0]
    return [name for name in re.findall(r"`([^`]+)`", paragraph)]


def install(tmp_path: Path, monkeypatch, body: str, distribution: str) -> None:
    """Write a recipe's Python files under tmp_path and register its entry points."""
    for name, code in blocks(body, "python").items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "__init__.py").touch()
        path.write_text(code, encoding="utf-8")
    (toml,) = blocks(body, "toml").values()
    groups = tomllib.loads(toml)["project"]["entry-points"]
    info = tmp_path / f"{distribution}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "".join(
            f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items())
            for group, entries in groups.items()
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))


@pytest.fixture
def clean_modules():
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.split(".")[0] in {"mytok", "mycorpus"}:
            del sys.modules[name]


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_the_segmenter_recipe(tmp_path, monkeypatch, clean_modules):
    body = recipe("A segmenter, with its options and its model check")
    install(tmp_path, monkeypatch, body, "mytok")
    assert touched(body)[:2] == [*blocks(body, "python"), "pyproject.toml"]
    monkeypatch.chdir(tmp_path)
    Path("cuts.txt").write_text("们 是\n", encoding="utf-8")
    Path("raw.txt").write_text("我们是学生\n", encoding="utf-8")
    listed = run("segmenters")
    assert listed.exit_code == 0
    # listed with its model check's answer for the options it is given (none here)
    (row,) = [line for line in listed.output.splitlines() if line.startswith("mytok")]
    assert "no model" in row and "mytok needs a model file; give -O model=PATH" in row
    done = run("segment", "-s", "mytok", "-O", "model=cuts.txt", "raw.txt", "-o", "out.txt")
    assert done.exit_code == 0, done.output
    assert Path("out.txt").read_text(encoding="utf-8") == "我们 是 学生\n"
    missing = run("segment", "-s", "mytok", "raw.txt", "-o", "out.txt")
    assert missing.exit_code == 2
    assert "mytok needs a model file" in missing.output and "Traceback" not in missing.output
    # its options, read from the one declaration: listed, and checked by the base class
    options = run("segmenters", "mytok")
    assert options.exit_code == 0
    assert [line.split()[0] for line in options.output.splitlines()[1:]] == ["model", "longest"]
    cut = run("segment", "-s", "mytok", "-O", "model=cuts.txt", "-O", "longest=1", "raw.txt")
    assert cut.exit_code == 0 and cut.output == "我 们 是 学 生\n"
    typo = ["segment", "-s", "mytok", "-O", "model=cuts.txt", "-O", "longst=2", "raw.txt"]
    refused = run(*typo, "-o", "out.txt")
    assert refused.exit_code == 2 and "did you mean longest?" in refused.output
    negative = run("segment", "-s", "mytok", "-O", "model=cuts.txt", "-O", "longest=-1", "raw.txt")
    assert negative.exit_code == 2
    assert "longest must be a whole number of at least 0, not -1" in negative.output


def test_the_corpus_recipe(tmp_path, monkeypatch, clean_modules):
    body = recipe("A corpus")
    install(tmp_path, monkeypatch, body, "mycorpus")
    assert touched(body)[:2] == [*blocks(body, "python"), "pyproject.toml"]
    data = tmp_path / "mycorpus" / "data"
    data.mkdir()
    (data / "train.txt").write_text("患者 主诉 头痛\n", encoding="utf-8")
    (data / "test.txt").write_text("患者 头痛 三 天\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    Path("out.txt").write_text("患者 头痛 三天\n", encoding="utf-8")
    listed = run("corpora")
    assert listed.exit_code == 0 and "clinic" in listed.output
    scored = run("score", "clinic:test", "out.txt", "--format", "json")
    assert scored.exit_code == 0, scored.output
    import json

    result = json.loads(scored.output)
    # 患者 头痛 correct of 4 gold, 3 predicted words; 三 and 天 are OOV (not in train)
    assert (result["gold_words"], result["pred_words"], result["correct_words"]) == (4, 3, 2)
    assert result["oov_rate"] == 0.5


def test_the_report_format_recipe(sample_bakeoff, tmp_path, monkeypatch):
    import cws_bench.reports as reports
    from cws_bench.run.bakeoff import run_bakeoff
    from cws_bench.run.config import parse_config

    config = parse_config(tomllib.loads(sample_bakeoff("extending", settings={"resamples": 50})))
    bakeoff_result = run_bakeoff(config, output_dir=tmp_path / "run", jobs=1, write=False)

    body = recipe("A report format")
    files = blocks(body, "python")
    module = files["cws_bench/reports/tsv.py"]
    namespace: dict = {}
    exec(compile(module, "cws_bench/reports/tsv.py", "exec"), namespace)
    (row,) = [line for line in files["cws_bench/reports/__init__.py"].splitlines()[1:] if line]
    name, _, value = row.rstrip(",").partition(": ")
    report = eval(value, {"Report": reports.Report, "render_tsv": namespace["render_tsv"]})
    monkeypatch.setitem(reports.REPORTS, eval(name), report)
    written = reports.write_reports(bakeoff_result, tmp_path)
    lines = written["tsv"].read_text(encoding="utf-8").splitlines()
    assert lines[0] == "segmenter\tcorpus\tf1"
    assert len(lines) == 1 + sum(1 for p in bakeoff_result.pairs if p.scores)
    assert reports.render_report(bakeoff_result, "tsv") == written["tsv"].read_text("utf-8")
    assert touched(body)[:3] == [
        "cws_bench/reports/tsv.py",
        "cws_bench/reports/__init__.py",
        "cws_bench/cli/report.py",
    ]
    assert all((ROOT / path).exists() for path in touched(body)[1:])
