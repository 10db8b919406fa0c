"""README.md as a newcomer reads it, and the docs/ pages it leads to: links work, commands run.

The README is the path (set-up, quick start, three recipes); the reference is
in docs/. The walkthroughs of some pages have their own tests, beside the code
they show: tests/regression/test_cli_regression.py (docs/REGRESSION.md),
tests/metrics/test_cli.py (docs/METRICS.md) and tests/test_streaming.py
(docs/SCORING.md, "In a training or evaluation loop").
"""

from __future__ import annotations

import json
import os
import re
import shlex
import unicodedata
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
SIGHAN_HEADING = "## SIGHAN 2005, scored as the official script scores"
# The reference pages the README's sections moved to (commands run from the project's root).
REFERENCE_PAGES = ("SCORING", "BAKEOFF", "CORPORA", "SEGMENTERS", "REPORTS", "SIGHAN_SCORING")


def section(heading: str, text: str | None = None, page: Path = README) -> str:
    """The body of a page's section, up to the next heading of the same level or higher."""
    text = page.read_text(encoding="utf-8") if text is None else text
    assert heading in text, heading
    level = heading.split(" ", 1)[0]
    body = text.split(heading + "\n", 1)[1]
    ends = [m.start() for m in re.finditer(rf"^#{{1,{len(level)}}} ", body, flags=re.M)]
    return body[: ends[0]] if ends else body


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'."""
    text = heading.strip().lower()
    kept = "".join(
        ch
        for ch in text
        if ch in " -_" or unicodedata.category(ch)[0] in "LN"  # letters (CJK too), digits
    )
    return kept.replace(" ", "-")


def headings(markdown: str) -> list[str]:
    """The headings of a Markdown text, outside code blocks."""
    found, fenced = [], False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            found.append(line.split(" ", 1)[1])
    return found


def test_github_anchor_rules() -> None:
    # As GitHub renders them (checked on rendered READMEs): commas and apostrophes go,
    # hyphens stay, digits stay, case folds.
    assert github_anchor("SIGHAN 2005, scored as the official script scores") == (
        "sighan-2005-scored-as-the-official-script-scores"
    )
    assert github_anchor("Regression-test your tokenizer") == "regression-test-your-tokenizer"
    assert github_anchor("People's Daily 1998, test split (`pd1998`)") == (
        "peoples-daily-1998-test-split-pd1998"
    )


def test_every_link_of_the_readme_and_docs_goes_somewhere() -> None:
    """Anchors name a heading of the page; relative links name a file of the repository."""
    pages = [README, *sorted((ROOT / "docs").glob("*.md"))]
    checked = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        anchors = {github_anchor(h) for h in headings(text)}
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", prose):
            if target.startswith(("http://", "https://")):
                continue
            path, _, anchor = target.partition("#")
            if path:
                linked = (page.parent / path).resolve()
                assert linked.exists(), f"{page.name}: link to missing {target}"
                if anchor:
                    linked_anchors = {
                        github_anchor(h) for h in headings(linked.read_text(encoding="utf-8"))
                    }
                    assert anchor in linked_anchors, f"{page.name}: no heading for {target}"
            else:
                assert anchor in anchors, f"{page.name}: no heading for #{anchor}"
            checked += 1
    assert checked >= 30


def test_contents_lists_every_section() -> None:
    text = README.read_text(encoding="utf-8")
    contents = section("## Contents", text)
    listed = set(re.findall(r"\]\(#([^)]+)\)", contents))
    sections = [h for h in headings(text) if f"## {h}" in text.splitlines()]
    missing = {github_anchor(h) for h in sections} - listed - {"contents"}
    assert not missing, f"README sections not in Contents: {sorted(missing)}"


def test_the_setup_commands_stay_first() -> None:
    """CI (.ci/run) runs the README's test command; the two set-up commands open the README."""
    text = README.read_text(encoding="utf-8")
    assert headings(text)[:2] == ["cws-bench", "Two commands"]
    first = re.search(r"```sh\n(.*?)```", text, flags=re.S)
    assert first is not None
    commands = [line.split("#")[0].strip() for line in first.group(1).splitlines()]
    assert commands == ["make run", "make test"]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^run: ", makefile, flags=re.M)
    assert re.search(r"^test: ", makefile, flags=re.M)


def test_one_way_of_calling_the_cli() -> None:
    """`cws-bench` throughout, after activating .venv once; no `.venv/bin/cws-bench`.

    The README and the pages moved out of it; docs/SCALING.md and docs/BENCHMARKS(-LOG).md
    record how their figures were measured and keep their own spelling.
    """
    moved = ("METRICS", "NEURAL", "REGRESSION", *REFERENCE_PAGES)  # pages moved out of the README
    pages = [README, *(ROOT / "docs" / f"{name}.md" for name in moved)]
    texts = [page.read_text(encoding="utf-8") for page in pages]
    for text in texts:
        assert ".venv/bin/cws-bench" not in text
    assert "source .venv/bin/activate" in texts[0]


def test_the_scratch_folder_is_ignored_but_present() -> None:
    gitignore = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "scratch/*" in gitignore
    assert "!scratch/README.md" in gitignore
    assert (ROOT / "scratch" / "README.md").is_file()


def test_commands_that_write_files_write_into_scratch() -> None:
    """Every `-o FILE` of the README's and the reference pages' commands is in scratch/ or reports/.

    docs/REGRESSION.md and docs/METRICS.md run inside the scratch folder (`cd scratch`
    first); the SIGHAN 2005 loop runs in a folder of scratch/ that it makes.
    """
    written = 0
    for page in [README, *(DOCS / f"{name}.md" for name in REFERENCE_PAGES)]:
        text = page.read_text(encoding="utf-8")
        for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
            if block.startswith("mkdir -p scratch/sighan2005 && cd scratch/sighan2005\n"):
                continue  # the block runs inside the scratch folder
            for line in block.splitlines():
                command = line.split("  #")[0]
                for target in re.findall(r"(?:^|\s)(?:-o|>)\s+(\S+)", command):
                    assert target.startswith(("scratch/", "reports/", "-")), (page.name, line)
                    written += 1
    assert written >= 20


def run_block(body: str, runner: CliRunner) -> list:
    """Run the commands of one sh block through the CLI; return their results."""
    results = []
    for line in body.splitlines():
        command = line.split("  #")[0].strip()
        if not command:
            continue
        words = shlex.split(command)
        assert words[0] == "cws-bench", f"unexpected line in README: {line}"
        result = runner.invoke(cli, words[1:])
        assert result.exit_code == 0, (line, result.output, result.exception)
        results.append(result)
    return results


def release_zip(icwb2: Path, target: Path) -> Path:
    """A zip in the release's layout (top folder icwb2-data/) of the shared files."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(icwb2.rglob("*")):
            if path.is_file():
                archive.write(path, f"icwb2-data/{path.relative_to(icwb2).as_posix()}")
    return target


@pytest.mark.slow
def test_quick_start_runs_verbatim(icwb2: Path, tmp_path: Path, monkeypatch) -> None:
    """Every command of the quick start, as shown, in a fresh folder with its scratch/.

    Tests have no network, so `cws-bench corpora download sighan2005-pku` fetches a
    zip of the shared icwb2-data in the release's layout from a file: URL (the
    mirror variable CWS_BENCH_SIGHAN2005_URL), into an empty cache folder.
    """
    pytest.importorskip("pkuseg", reason="the quick start compares jieba with pkuseg")
    monkeypatch.chdir(tmp_path)
    zipped = release_zip(icwb2, tmp_path / "icwb2-data.zip")
    monkeypatch.setenv("CWS_BENCH_SIGHAN2005_URL", zipped.as_uri())
    monkeypatch.setenv("CWS_BENCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CWS_BENCH_SIGHAN2005", raising=False)
    (tmp_path / "scratch").mkdir()  # in every clone (scratch/README.md keeps it)
    quick = section("## Quick start")
    blocks = re.findall(r"```(sh|text)\n(.*?)```", quick, flags=re.S)
    assert [kind for kind, _ in blocks].count("sh") >= 4
    runner = CliRunner()
    last = None
    for kind, body in blocks:
        if kind == "text":
            assert last is not None, "an output block must follow a command"
            assert last.stdout.rstrip("\n") == body.rstrip("\n")
            continue
        last = run_block(body, runner)[-1]
    # What the prose around the commands promises:
    assert (tmp_path / "cache" / "sighan2005" / "icwb2-data.zip").is_file()
    for name in ("results.json", "results.csv", "leaderboard.md", "report.html"):
        assert (tmp_path / "reports" / "default" / name).is_file(), name
    assert "pkuseg" in (tmp_path / "scratch" / "pku-diff.html").read_text(encoding="utf-8")
    import cws_bench

    score = cws_bench.score_files("sighan2005-pku:test", "scratch/pku-jieba.txt")
    assert f"{100 * score.f1:.2f}" in quick


SUMMARY = re.compile(r"^###\t(\S+)\t" + r"\t".join([r"(\d+)"] * 6 + [r"([\d.]+)"] * 6) + "$")


@pytest.mark.slow
def test_sighan_table_is_what_the_commands_shown_give(icwb2: Path, tmp_path: Path, monkeypatch):
    """Rerun the SIGHAN 2005 section's commands, row by row, and compare with its table.

    pkuseg's rows are left out (the slowest segmenter: about a minute over the four
    test sets); every other row is rerun.
    """
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CWS_BENCH_SIGHAN2005", str(icwb2))
    body = section(SIGHAN_HEADING, page=DOCS / "SIGHAN_SCORING.md")
    loop = re.search(r"```sh\n(.*?)```", body, flags=re.S)
    assert loop is not None
    script = loop.group(1)
    table = {}
    names = {"PKU": "pku", "MSR": "msr", "CityU": "cityu", "AS": "as"}
    for line in body.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 12 and cells[0] in names:
            table[names[cells[0]], cells[1]] = cells[3:]
    assert len(table) == 20
    runner = CliRunner()
    corpus_lines = [ln.strip() for ln in script.splitlines() if ln.strip().startswith("cws-bench")]
    segmenters = re.search(r"for s in ([\w ]+); do", script)
    assert segmenters is not None
    assert segmenters.group(1).split() == ["baseline", "fmm", "bimm", "jieba", "pkuseg"]
    for c in ("pku", "msr", "cityu", "as"):
        for template in corpus_lines:
            command = template.replace("$c", c)
            if "-s pkuseg" in command or "$s" in command:
                continue
            result = runner.invoke(cli, shlex.split(command)[1:])
            assert result.exit_code == 0, (command, result.output)
        for s in ("baseline", "fmm", "bimm", "jieba"):
            command = f"cws-bench score sighan2005-{c}:test {c}-{s}.txt --format sighan"
            assert command + " | tail -n 1" in script.replace("$c", c).replace("$s", s)
            result = runner.invoke(cli, shlex.split(command)[1:])
            assert result.exit_code == 0, result.output
            summary = SUMMARY.match(result.stdout.rstrip("\n").splitlines()[-1])
            assert summary is not None, result.stdout[-300:]
            counts, scores = summary.groups()[1:7], summary.groups()[7:]
            expected = table[c, s]
            # R, P, F, OOV rate, R_oov, R_iv; then insertions, deletions, substitutions
            assert list(scores) == expected[:6], (c, s)
            assert [f"{int(n):,}" for n in counts[:3]] == expected[6:], (c, s)


def python_blocks(heading: str, page: Path = README) -> list[str]:
    """The Python examples of a page's section, up to its first subsection."""
    body = section(heading, page=page)
    body = re.split(r"^### ", body, flags=re.M)[0]
    return re.findall(r"```python\n(.*?)```", body, flags=re.S)


@pytest.mark.parametrize(
    ("page", "heading"),
    [
        ("docs/SCORING.md", "## Python API"),
        ("docs/SCORING.md", "## The `score` command"),
        ("docs/SCORING.md", "### Many systems, one command"),
        ("docs/CORPORA.md", "# Corpora and dictionaries"),
        ("docs/SEGMENTERS.md", "# Segmenters"),
    ],
)
def test_python_examples_run_as_shown(page: str, heading: str, tmp_path: Path, monkeypatch) -> None:
    """The library examples run from the project's root (here a copy of its layout)."""
    for folder in ("corpora", "dictionaries"):
        (tmp_path / folder).symlink_to(ROOT / folder, target_is_directory=True)
    (tmp_path / "scratch").mkdir()
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks(heading, ROOT / page)
    assert blocks
    namespace: dict = {}
    for code in blocks:
        exec(compile(code, page, "exec"), namespace)
    if heading == "## The `score` command":  # the numbers of the command shown above it
        command = section(heading, page=ROOT / page).split("```sh\n", 1)[1].split("\n", 1)[0]
        assert command.startswith("cws-bench score corpora/sample/gold.txt")
        shown = CliRunner().invoke(cli, [*shlex.split(command)[1:], "--format", "json"])
        assert shown.exit_code == 0, shown.output
        printed = json.loads(shown.stdout)
        for name, value in namespace["result"].to_dict().items():
            assert printed[name] == value, name
    if heading == "### Many systems, one command":
        assert {row.name for row in namespace["report"].rows} == {"jieba", "fmm"}
    if heading == "# Segmenters":
        assert (tmp_path / "scratch" / "out.txt").is_file()


def stand_in_model(serve_http) -> str:
    """An OpenAI-compatible chat endpoint on 127.0.0.1 whose "model" is jieba; its URL.

    It answers the line at the end of the llm segmenter's prompt with jieba's words
    separated by spaces and the full-width comma made half-width, as models do, so the
    recipe's fidelity summary has altered lines to count; it streams as the adapter
    asks (server-sent events) and stops with the test.
    """
    from http.server import BaseHTTPRequestHandler

    import jieba

    from cws_bench.segmenters.llm import DEFAULT_PROMPT

    head = DEFAULT_PROMPT.split("{text}")[0]
    tokenizer = jieba.Tokenizer()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            line = body["messages"][-1]["content"].removeprefix(head)
            reply = " ".join(tokenizer.lcut(line)).replace("，", ",")
            if body.get("stream"):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                chunk = {"choices": [{"index": 0, "delta": {"content": reply}}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode())
                return
            data = json.dumps(
                {"choices": [{"index": 0, "message": {"role": "assistant", "content": reply}}]}
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = serve_http(Handler)
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


@pytest.mark.slow
def test_the_recipes_run_verbatim(icwb2: Path, tmp_path: Path, monkeypatch, serve_http) -> None:
    """ "From your segmenter to a publishable number": every command and script, as shown.

    Run in a copy of the project's layout (docs/ linked), after the quick start's export
    of PKU's raw input; `python3`/`python` are this interpreter (what `source
    .venv/bin/activate` gives a reader). No LLM endpoint is reachable here: the prompted
    LLM's `$LLM` is a stand-in OpenAI-compatible server on 127.0.0.1 (stand_in_model).
    """
    import shutil
    import subprocess
    import sys

    for folder in ("corpora", "dictionaries"):
        (tmp_path / folder).symlink_to(ROOT / folder, target_is_directory=True)
    # docs/examples/ copied, not linked: a bake-off TOML's relative paths are relative to
    # its own folder (../../scratch must be this layout's scratch, not the project's)
    (tmp_path / "docs").mkdir()
    for entry in (ROOT / "docs").iterdir():
        if entry.name == "examples":
            shutil.copytree(entry, tmp_path / "docs" / "examples")
        else:
            (tmp_path / "docs" / entry.name).symlink_to(entry)
    (tmp_path / "scratch").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CWS_BENCH_SIGHAN2005", str(icwb2))
    monkeypatch.setenv("CWS_BENCH_LLM_CACHE", str(tmp_path / "llm-cache"))
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    runner = CliRunner()
    run_block("cws-bench corpora export sighan2005-pku --as raw -o scratch/pku.txt", runner)
    recipes = section("## From your segmenter to a publishable number")
    blocks = re.findall(r"```(sh|python)\n(.*?)```", recipes, flags=re.S)
    assert [kind for kind, _ in blocks] == ["sh", "python", "sh", "sh", "sh", "sh"]
    script = (ROOT / "docs" / "examples" / "my_bakeoff.py").read_text(encoding="utf-8")
    assert blocks[1][1] in script, "the README shows docs/examples/my_bakeoff.py"
    endpoint = stand_in_model(serve_http)
    for kind, body in blocks:
        if kind == "python":
            continue
        for line in body.splitlines():
            if line.startswith("export LLM="):
                monkeypatch.setenv("LLM", endpoint)  # the stand-in, not the example address
                continue
            if line.startswith("python "):
                done = subprocess.run(
                    [sys.executable, *shlex.split(line)[1:]],
                    capture_output=True,
                    text=True,
                    timeout=600,
                    check=False,
                )
                assert done.returncode == 0, done.stderr[-2000:]
                assert "PairResult mine on sighan2005-pku (open)" in done.stdout
                continue
            result = run_block(os.path.expandvars(line), runner)[0]
            if "--method sighan" in line and "--format" not in line:
                assert "(sighan counting" in result.stdout
    names = ("pku-mine.tex", "pku.tex", "my-outputs.tex", "pku-llm.tex", "pku-qwen.tex")
    for name in names:
        assert "\\begin{table}" in (tmp_path / "scratch" / name).read_text(encoding="utf-8")
    mine = json.loads((tmp_path / "reports" / "my-outputs" / "results.json").read_text("utf-8"))
    rows = {(pair["segmenter"], pair["corpus"]) for pair in mine["pairs"]}
    assert ("mine", "sighan2005-msr") in rows and ("mine", "sighan2005-pku") in rows
    # The stand-in turned every full-width comma half-width: those lines are altered.
    fidelity = (tmp_path / "scratch" / "pku-llm-fidelity.jsonl").read_text(encoding="utf-8")
    records = [json.loads(line) for line in fidelity.splitlines()]
    raw = (tmp_path / "scratch" / "pku.txt").read_text(encoding="utf-8").splitlines()
    altered = sum(bool(record["altered"]) for record in records)
    assert altered == sum("，" in line for line in raw)


def test_the_pip_path_installs_what_make_installs() -> None:
    """README's set-up without make names the Makefile's extras (pkuseg on its own line)."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    extras = re.search(r"^EXTRAS := (\S+)$", makefile, flags=re.M)
    assert extras is not None
    assert "--no-build-isolation pkuseg" in makefile
    body = section("## Two commands")
    pip = re.search(r"```sh\n(python3 -m venv .*?)```", body, flags=re.S)
    assert pip is not None
    lines = pip.group(1).splitlines()
    assert lines[1] == "pip install numpy Cython && pip install --no-build-isolation pkuseg"
    shown = re.fullmatch(r"pip install -e '\.\[([\w,-]+)\]'", lines[2])
    assert shown is not None, lines[2]
    assert set(shown.group(1).split(",")) | {"pkuseg"} == set(extras.group(1).split(","))


def test_the_default_bakeoffs_time_is_one_measured_figure_with_its_date_and_machine():
    # The README and docs/BAKEOFF.md once said "about 20 seconds" and "about 70 seconds"
    # for the same run: one measurement now, dated, with the machine it ran on.
    readme = " ".join(README.read_text(encoding="utf-8").split())
    bakeoff = " ".join((ROOT / "docs" / "BAKEOFF.md").read_text(encoding="utf-8").split())
    figure = re.compile(r"(\d+) s of CPU time")
    wall = re.compile(r"(\d+) s (?:of )?wall-clock")
    date = re.compile(r"measured (?:on )?(\d{4}-\d\d-\d\d)", re.I)
    for text in (readme, bakeoff):
        assert "about 20 seconds" not in text and "about 70 seconds" not in text
    assert figure.search(readme) and figure.search(bakeoff)
    assert figure.search(readme).group(1) == figure.search(bakeoff).group(1)
    assert wall.search(readme).group(1) == wall.search(bakeoff).group(1)
    assert date.search(readme).group(1) == date.search(bakeoff).group(1)
    assert "2-core" in bakeoff and "busy" in bakeoff  # the machine, and that it was shared


def test_the_pip_route_for_users_installs_what_the_default_bakeoff_needs() -> None:
    """README's "Install with pip": pkuseg's order as its adapter says it, the package by its
    name, extras that exist; the default bake-off's libraries are core dependencies.

    tests/test_wheel.py runs the default bake-off from the wheel installed alone.
    """
    try:
        import tomllib
    except ImportError:  # Python 3.10: the backport, a dependency there
        import tomli as tomllib

    from cws_bench.segmenters.pkuseg import PkusegSegmenter

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    body = section("## Two commands")
    route = re.search(r"```sh\n(python3 -m venv ~/.*?)```", body, flags=re.S)
    assert route is not None
    lines = [line.split("  #")[0].strip() for line in route.group(1).splitlines()]
    assert lines[1] == PkusegSegmenter.install
    assert lines[2] == f"pip install {project['name']}"
    named = re.findall(r"pip install\s+'cws-bench\[([\w,-]+)\]'", body)
    assert named
    for extras in named:
        assert set(extras.split(",")) <= set(project["optional-dependencies"])
    core = {re.match(r"[\w-]+", requirement).group(0) for requirement in project["dependencies"]}
    assert {"jieba", "snownlp", "opencc"} <= core


# docs/BENCHMARKS.md is the short current table; docs/BENCHMARKS-LOG.md the dated log:
# each benchmark script has a row (its latest figure, the command that measures it),
# each row links to its sections of the log, every section of the log is reached.

BENCHMARKS = DOCS / "BENCHMARKS.md"
BENCHMARKS_LOG = DOCS / "BENCHMARKS-LOG.md"


def benchmark_rows() -> list[list[str]]:
    """The cells of docs/BENCHMARKS.md's table rows (the header and its rule left out)."""
    text = BENCHMARKS.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines[2:]]


def test_benchmarks_is_a_short_table_and_the_log_holds_the_detail() -> None:
    assert len(BENCHMARKS.read_bytes()) < 12_000
    assert benchmark_rows() and all(len(cells) == 4 for cells in benchmark_rows())
    assert len(BENCHMARKS_LOG.read_bytes()) > 8 * len(BENCHMARKS.read_bytes())


def test_every_benchmark_script_has_a_row_with_its_figure_and_command() -> None:
    rows = benchmark_rows()
    named = {name for cells in rows for name in re.findall(r"`(bench_\w+\.py)`", cells[0])}
    scripts = {path.name for path in (ROOT / "benchmarks").glob("bench_*.py")}
    assert scripts <= named, sorted(scripts - named)
    for benchmark, figure, command, _ in rows:
        assert re.search(r"\d{4}-\d{2}-\d{2}\)", figure), benchmark  # dated
        assert command.startswith("`"), benchmark


def test_every_section_of_the_benchmarks_log_is_reached_from_a_row() -> None:
    linked = {
        anchor
        for cells in benchmark_rows()
        for anchor in re.findall(r"\]\(BENCHMARKS-LOG\.md#([^)]+)\)", cells[3])
    }
    log = BENCHMARKS_LOG.read_text(encoding="utf-8")
    sections = [heading for heading in headings(log) if f"\n## {heading}\n" in log]
    assert len(sections) > 20
    missing = [heading for heading in sections if github_anchor(heading) not in linked]
    assert not missing, missing
